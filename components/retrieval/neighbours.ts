/**
 * Neighbouring passages as one source. Passages that follow each other on one
 * page (or slide) are one stretch of the page cut by the chunking, and when
 * several are chosen they go to the model and to the reader as one source, in
 * the rank of the best of them, without the text a passage repeats of the one
 * before (the section heading that opens each passage of a section, and the
 * chunks' overlap). A source still names no page that its passages did not:
 * passages are joined only where one's pages hold the other's. In a document
 * without pages, a section bounds a source instead of a page: passages are
 * joined where the second opens with the first's heading or repeats its end.
 * @module
 */
import type { Source } from "../core/source.ts";
import { pageNumbersToLocation } from "../page_location.ts";

/** Where a passage is: its index, its position in its document, its pages. */
export interface Passage {
  /** The key of its index: passages of one key are of one document, at one setting. */
  key: string;
  /** Its position in its document, from 0. */
  ordinal: number;
  pageNumbers: readonly number[];
}

/**
 * The sources, each run of neighbouring passages of the same pages joined into
 * one source at the rank of its best passage; the others as they were. A
 * joined source's id is its first passage's followed by the last one's
 * ordinal (`abc-3` and `abc-4` give `abc-3-4`); its tokens are its passages'
 * together, the budget they took, which is more than its text holds when a
 * repeated heading or overlap was left out: a caller with a tokenizer at hand
 * counts them anew (this module loads none, since the tokenizer is large).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Source } from "../core/source.ts";
 * import { joinNeighbours } from "./neighbours.ts";
 * const document = {} as Source["document"];
 * const source = (id: string, content: string): Source =>
 *   ({ id, document, location: "2", content, numTokens: 5 });
 * const [second, first, other] = [
 *   source("k-4", "Rules\nIt rises overnight. Bake it at dawn."),
 *   source("k-3", "Rules\nMix the dough. It rises overnight."),
 *   source("k-9", "Prices"),
 * ];
 * const passages = new Map([[second, 4], [first, 3], [other, 9]]);
 * const joined = joinNeighbours(
 *   [second, other, first],
 *   (s) => ({ key: "k", ordinal: passages.get(s)!, pageNumbers: [2] }),
 * );
 * assert.deepEqual(joined.map((s) => [s.id, s.content]), [
 *   ["k-3-4", "Rules\nMix the dough. It rises overnight. Bake it at dawn."],
 *   ["k-9", "Prices"],
 * ]);
 * ```
 */
export function joinNeighbours(
  sources: readonly Source[],
  passageOf: (source: Source) => Passage,
): Source[] {
  const at = new Map<string, Source>();
  for (const source of sources) {
    const { key, ordinal } = passageOf(source);
    at.set(`${ordinal}:${key}`, source);
  }
  const joined = new Set<Source>();
  const result: Source[] = [];
  for (const source of sources) {
    if (joined.has(source)) continue;
    const { key, ordinal, pageNumbers } = passageOf(source);
    const run = [source];
    let pages = new Set(pageNumbers);
    joined.add(source);
    // Grows the run at either end while the next passage is chosen and shares its pages.
    for (const step of [-1, 1]) {
      for (let next = ordinal + step;; next += step) {
        const neighbour = at.get(`${next}:${key}`);
        if (!neighbour || joined.has(neighbour)) break;
        const theirs = passageOf(neighbour).pageNumbers;
        const union = new Set([...pages, ...theirs]);
        if (union.size > Math.max(pages.size, theirs.length)) break;
        // Without pages, a section is what bounds a source.
        const [before, after] = step < 0 ? [neighbour, run[0]!] : [run.at(-1)!, neighbour];
        if (union.size === 0 && continuation(before.content, after.content) === undefined) break;
        pages = union;
        joined.add(neighbour);
        if (step < 0) run.unshift(neighbour);
        else run.push(neighbour);
      }
    }
    result.push(
      run.length === 1 ? source : {
        id: `${run[0]!.id}-${passageOf(run.at(-1)!).ordinal}`,
        document: source.document,
        location: pageNumbersToLocation(pages),
        content: run.map((part) => part.content).reduce(joinTexts),
        numTokens: run.reduce((sum, part) => sum + part.numTokens, 0),
      },
    );
  }
  return result;
}

/**
 * The text of two neighbouring passages as one: the second's first line left
 * out when it repeats the first's (the section's heading, which opens every
 * passage of a section), then what it repeats of the end of the first (the
 * chunks' overlap, whole words).
 */
function joinTexts(first: string, second: string): string {
  return first + (continuation(first, second) ?? `\n\n${second}`);
}

/**
 * What `second` adds to `first` when it continues it: after the heading line
 * they both open with (a passage of a section starts with its heading), or
 * after the end of `first` that it repeats (the chunks' overlap, whole words);
 * `undefined` when it does neither, as a passage opening another section.
 */
function continuation(first: string, second: string): string | undefined {
  const heading = first.slice(0, lineEnd(first));
  const opening = second.slice(0, lineEnd(second));
  let rest: string | undefined;
  // A Markdown heading opens its section's first passage as written ("# Title"), the others as text.
  if (heading.length < first.length && plainHeading(opening) === plainHeading(heading)) {
    rest = second.slice(opening.length).replace(/^\n+/, "");
  }
  const body = rest ?? second;
  for (let start = Math.max(0, first.length - body.length); start < first.length; start++) {
    // The overlap is whole sentences: it starts where one ends.
    if (start > 0 && !SENTENCE_END.test(first.slice(Math.max(0, start - 8), start))) continue;
    const overlap = first.length - start;
    if (overlap < body.length && !/\s/.test(body[overlap]!)) continue;
    if (body.startsWith(first.slice(start))) return body.slice(overlap);
  }
  return rest === undefined ? undefined : `\n\n${rest}`;
}

const SENTENCE_END = /(?:[.!?:;…][)"'’”\]]*\s+|\n\s*)$/u;

function plainHeading(line: string): string {
  return line.replace(/^#{1,6}\s+/, "");
}

function lineEnd(text: string): number {
  const end = text.indexOf("\n");
  return end === -1 ? text.length : end;
}
