/**
 * How a source's location reads in the UI.
 * @module
 */

/**
 * The location of a source in words: the API gives pages as `3` or `1-3, 5`, slides of a
 * presentation the same way, and a few source storages already write `page 3`.
 *
 * @example
 * ```ts
 * import { formatLocation } from "./location.ts";
 * console.assert(formatLocation("3") === "page 3");
 * console.assert(formatLocation("1-3, 5") === "pages 1-3, 5");
 * console.assert(formatLocation("4", "deck.pptx") === "slide 4");
 * console.assert(formatLocation("") === "");
 * ```
 */
export function formatLocation(location: string, documentName = ""): string {
  const text = location.trim();
  if (text === "" || !/^\d/.test(text)) return text;
  const unit = /\.pptx$/i.test(documentName) ? "slide" : "page";
  return /^\d+$/.test(text) ? `${unit} ${text}` : `${unit}s ${text}`;
}

/** The most pages a location's runs are read out to: a run longer than that is cut. */
const MAX_RUN = 1000;

/**
 * The pages a location names, in order: `1-3, 5` is pages 1, 2, 3 and 5;
 * `page 2` is page 2; a location without numbers names none.
 *
 * @example
 * ```ts
 * import { locationPages } from "./location.ts";
 * console.assert(locationPages("1-3, 5").join() === "1,2,3,5");
 * console.assert(locationPages("page 2").join() === "2");
 * console.assert(locationPages("").length === 0);
 * ```
 */
export function locationPages(location: string): number[] {
  const pages: number[] = [];
  for (const [, first, last] of location.matchAll(/(\d+)(?:\s*[-–]\s*(\d+))?/g)) {
    const start = Number(first);
    const end = Math.min(Math.max(start, Number(last ?? first)), start + MAX_RUN);
    for (let page = start; page <= end; page++) if (!pages.includes(page)) pages.push(page);
  }
  return pages;
}
