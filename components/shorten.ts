/**
 * Shortening a text to a width, at a word boundary.
 * @module
 */
import { isSpace } from "./core/text_scan.ts";

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
  const words = wordsPast(text, width);
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

/**
 * The words of the text, split at white space, until they are longer than
 * `width` joined by single spaces: what follows them cannot change the
 * shortened text, so a long text is not read, nor split, to its end.
 */
function wordsPast(text: string, width: number): string[] {
  const words: string[] = [];
  let joined = -1;
  let i = 0;
  while (joined <= width) {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    if (i === text.length) break;
    const start = i;
    while (i < text.length && !isSpace(text.charCodeAt(i))) i++;
    words.push(text.slice(start, i));
    joined += i - start + 1;
  }
  return words;
}
