/**
 * Shortening a text to a width, at a word boundary.
 * @module
 */
/**
 * Collapses white space and, when the text is longer than `width`, cuts it at
 * a word boundary and ends it with ` [...]`, the whole at most `width` long.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shorten } from "@svc/svc";
 * assert(shorten("a  b\nc", 100) === "a b c");
 * ```
 */
export function shorten(text: string, width: number): string {
  const placeholder = " [...]";
  const words = text.split(/\s+/).filter(Boolean);
  const collapsed = words.join(" ");
  if (collapsed.length <= width) return collapsed;
  let result = "";
  for (const word of words) {
    const next = result ? `${result} ${word}` : word;
    if (next.length + placeholder.length > width) break;
    result = next;
  }
  return result ? result + placeholder : placeholder.trimStart();
}
