/**
 * How a source's location reads in the UI.
 * @module
 */

/**
 * The location of a source in words: the API gives pages as `3` or
 * `1-3, 5`, and a few source storages already write `page 3`.
 *
 * @example
 * ```ts
 * import { formatLocation } from "./location.ts";
 * console.assert(formatLocation("3") === "page 3");
 * console.assert(formatLocation("1-3, 5") === "pages 1-3, 5");
 * console.assert(formatLocation("") === "");
 * ```
 */
export function formatLocation(location: string): string {
  const text = location.trim();
  if (text === "" || !/^\d/.test(text)) return text;
  return /^\d+$/.test(text) ? `page ${text}` : `pages ${text}`;
}
