/**
 * The `[n]` markers of an answer's text: `[2]`, `[1, 2]`, `[1][2]`, each
 * number a source's rank from 1.
 * @module
 */

/** A marker: numbers separated by commas (or semicolons) and spaces, in brackets. */
const MARKER = /\[\s*\d{1,3}(?:\s*[,;]\s*\d{1,3})*\s*\]/g;
/** Whether a text holds a marker. */
export const HAS_MARKER: RegExp = new RegExp(MARKER.source);

/** A part of a text: plain text, or a marker with its numbers. */
export type TextPart = string | { marker: string; numbers: number[] };

/**
 * The text cut into plain text and markers.
 *
 * @example
 * ```ts
 * import { splitCitations } from "./citation_markers.ts";
 * const parts = splitCitations("Cardamom [2], [1, 3].");
 * console.assert(JSON.stringify(parts) === JSON.stringify([
 *   "Cardamom ", { marker: "[2]", numbers: [2] }, ", ", { marker: "[1, 3]", numbers: [1, 3] }, ".",
 * ]));
 * ```
 */
export function splitCitations(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let from = 0;
  for (const match of text.matchAll(MARKER)) {
    if (match.index > from) parts.push(text.slice(from, match.index));
    parts.push({ marker: match[0], numbers: match[0].match(/\d+/g)!.map(Number) });
    from = match.index + match[0].length;
  }
  if (from < text.length) parts.push(text.slice(from));
  return parts;
}
