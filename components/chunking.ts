/**
 * Token windows over a document's pages: each chunk remembers the pages its
 * tokens came from, so a source can say where it is.
 * @module
 */
import { decode, encode } from "gpt-tokenizer/encoding/cl100k_base";
import type { Page } from "./core/page.ts";
import { quote, SvcError } from "./core/errors.ts";

/** A window of tokens of one document. */
export interface Chunk {
  /** The text of the window's tokens. */
  text: string;
  /** The numbers of the pages its tokens come from, ascending, without repeats. */
  pageNumbers: number[];
  /** How many tokens the window holds. */
  numTokens: number;
}

/** Options of {@linkcode chunkPages}. */
export interface ChunkOptions {
  /**
   * Tokens per chunk.
   * @default {500}
   */
  chunkSize?: number;
  /**
   * Tokens shared by neighbouring chunks.
   * @default {250}
   */
  chunkOverlap?: number;
  /**
   * The most chunks the pages may make: more is an error, raised before any
   * chunk is made.
   * @default {Infinity}
   */
  maxChunks?: number;
  /** The document's name, for that error. */
  name?: string;
}

/**
 * Cuts the pages of one document into windows of `chunkSize` cl100k tokens
 * that start every `chunkSize - chunkOverlap` tokens. When tokens remain after
 * the last full window, one more window takes them, starting at the next step.
 * A document without tokens has no chunks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chunkPages } from "@svc/svc";
 * const chunks = chunkPages([{ text: "one two three", number: 1 }], { chunkSize: 2, chunkOverlap: 1 });
 * assert(chunks[0]?.pageNumbers[0] === 1);
 * ```
 *
 * @throws {SvcError} 422 when `chunkSize` is not a positive integer, or
 * `chunkOverlap` not an integer from 0 to below `chunkSize`; 422 naming the
 * document, the number of chunks and the limit when they are more than
 * `maxChunks`
 */
export function chunkPages(pages: readonly Page[], options: ChunkOptions = {}): Chunk[] {
  const { chunkSize = 500, chunkOverlap = 250, maxChunks = Infinity } = options;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new SvcError(`chunk_size must be a positive integer, not ${chunkSize}`, { status: 422 });
  }
  if (!Number.isInteger(chunkOverlap) || chunkOverlap < 0 || chunkOverlap >= chunkSize) {
    throw new SvcError(
      `chunk_overlap must be an integer from 0 to less than chunk_size (${chunkSize}), ` +
        `not ${chunkOverlap}`,
      { status: 422 },
    );
  }

  const tokens: number[] = [];
  const tokenPages: (number | null)[] = [];
  for (const page of pages) {
    // A line break between pages keeps the last word of one page from gluing onto the next.
    const pageTokens = encode(/\s$/.test(page.text) ? page.text : `${page.text}\n`);
    for (const token of pageTokens) {
      tokens.push(token);
      tokenPages.push(page.number);
    }
  }

  const step = chunkSize - chunkOverlap;
  // Counted before the windows are made, which could be as many as the tokens.
  const count = tokens.length <= chunkSize
    ? Math.min(tokens.length, 1)
    : Math.ceil((tokens.length - chunkSize) / step) + 1;
  if (count > maxChunks) throw tooManyChunks(count, { ...options, maxChunks });
  const starts: number[] = [];
  let start = 0;
  for (; start + chunkSize <= tokens.length; start += step) starts.push(start);
  if (starts.length === 0 ? tokens.length > 0 : starts.at(-1)! + chunkSize < tokens.length) {
    starts.push(start);
  }

  return starts.map((first) => {
    const end = Math.min(first + chunkSize, tokens.length);
    const numbers = new Set<number>();
    for (let i = first; i < end; i++) {
      const number = tokenPages[i];
      if (number !== null && number !== undefined) numbers.add(number);
    }
    return {
      text: decode(tokens.slice(first, end)),
      pageNumbers: [...numbers].sort((a, b) => a - b),
      numTokens: end - first,
    };
  });
}

/** The refusal of a document that would make more chunks than the limit. */
function tooManyChunks(
  count: number,
  options: ChunkOptions & { maxChunks: number },
): SvcError {
  const subject = options.name === undefined
    ? "The document would make"
    : `Cannot store ${quote(options.name)}: it would make`;
  return new SvcError(
    `${subject} ${count} chunks, more than the limit of ${options.maxChunks} per document: ` +
      "use a larger chunk_size, a smaller chunk_overlap, or split the document",
    { status: 422 },
  );
}

/** The number of cl100k tokens of a text. */
export function countTokens(text: string): number {
  return encode(text).length;
}

/**
 * Page numbers as a location: sorted, without repeats, runs of three or more
 * joined: `[1, 2, 3, 5, 7, 8]` -> `"1-3, 5, 7, 8"`; no numbers -> `""`.
 */
export function pageNumbersToLocation(numbers: Iterable<number>): string {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    if (j - i >= 2) parts.push(`${sorted[i]}-${sorted[j]}`);
    else parts.push(...sorted.slice(i, j + 1).map(String));
    i = j + 1;
  }
  return parts.join(", ");
}
