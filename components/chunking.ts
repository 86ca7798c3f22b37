/**
 * Chunks of a document's pages that follow its structure: they end at
 * paragraph or sentence boundaries within the token limit, start anew at a
 * section heading or a page when they hold enough already, and remember the
 * exact pages their text comes from and the heading of their section, so a
 * source can say where it is.
 * @module
 */
import type { Page } from "./core/page.ts";
import { quote, SvcError } from "./core/errors.ts";
import { pageBlocks, sentences } from "./text_blocks.ts";
import {
  countTokens,
  isCut,
  type MeasuredText,
  measureTokens,
  pieceWindows,
  tokenWindows,
} from "./token_counts.ts";

/** A passage of one document. */
export interface Chunk {
  /**
   * The passage: whole paragraphs or sentences of the document (a sentence
   * longer than a chunk is cut between words). When its section's
   * heading comes before it, the heading is its first line.
   */
  text: string;
  /** The numbers of the pages its text comes from, ascending, without repeats. */
  pageNumbers: number[];
  /** How many tokens the text holds. */
  numTokens: number;
}

/** Options of {@linkcode chunkPages}. */
export interface ChunkOptions {
  /**
   * The most tokens of a chunk.
   * @default {500}
   */
  chunkSize?: number;
  /**
   * The most tokens a chunk repeats of the one before, in whole sentences or
   * paragraphs of the same page, where a chunk ends because it is full.
   * @default {100}
   */
  chunkOverlap?: number;
  /**
   * The most chunks the pages may make: more is an error, raised before any
   * chunk is embedded or stored.
   * @default {Infinity}
   */
  maxChunks?: number;
  /** The document's name, for that error. */
  name?: string;
  /**
   * Whether each page starts a chunk, whatever the chunk before holds: for
   * slides, which stand alone, where a PDF's page may end inside a paragraph.
   * @default {false}
   */
  everyPage?: boolean;
}

/** A paragraph, a sentence or a token window: what chunks are made of. */
interface Unit {
  text: string;
  page: number | null;
  tokens: number;
  /** Its tokens as its chunk counts them, without reading its text again. */
  measured: MeasuredText;
  /** Starts a paragraph (and so follows a blank line in a chunk). */
  paragraph: boolean;
  /** Starts a page. */
  pageStart: boolean;
  /** Is a heading. */
  isHeading: boolean;
  /** The heading of the section it is in. */
  section?: string;
}

/**
 * Cuts the pages of one document into chunks of at most `chunkSize` cl100k
 * tokens that end at paragraph boundaries, else at sentence boundaries (a
 * sentence longer than a chunk is cut between words, a word longer than a
 * chunk into token windows). A chunk that holds
 * a quarter of `chunkSize` or more ends before a heading and before a new
 * page, so that most chunks lie on one page and in one section; a chunk that
 * ends because it is full is followed by one that repeats its last sentences
 * or paragraphs of the same page, up to `chunkOverlap` tokens. A chunk whose
 * section's heading came before it starts with that heading, on a line of
 * its own. With `everyPage` (slides) every page starts a chunk, and a slide
 * of a heading alone makes none where the chunk after it starts with that
 * heading. A document without text has no chunks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chunkPages } from "@svc/svc";
 * const chunks = chunkPages([
 *   { text: "Baking\n\nBread needs flour. It needs water.", number: 1 },
 *   { text: "Storing\n\nKeep it dry.", number: 2 },
 * ], { chunkSize: 20, chunkOverlap: 0 });
 * assert.deepEqual(chunks.map((chunk) => chunk.pageNumbers), [[1], [2]]);
 * assert.equal(chunks[1]!.text, "Storing\n\nKeep it dry.");
 * ```
 *
 * @throws {SvcError} 422 when `chunkSize` is not a positive integer, or
 * `chunkOverlap` not an integer from 0 to below `chunkSize`; 422 naming the
 * document, the number of chunks and the limit when they are more than
 * `maxChunks`
 */
export function chunkPages(pages: readonly Page[], options: ChunkOptions = {}): Chunk[] {
  const { chunkSize = 500, chunkOverlap = 100, maxChunks = Infinity, everyPage = false } = options;
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

  const chunks: Chunk[] = [];
  const minTokens = Math.ceil(chunkSize / 4);
  // A heading of more than an eighth of a chunk is left out of the chunks after it.
  const sectionTokens = new Map<string, number>();
  const headingTokens = (unit: Unit) => {
    if (unit.isHeading || unit.section === undefined) return 0;
    let tokens = sectionTokens.get(unit.section);
    if (tokens === undefined) {
      sectionTokens.set(unit.section, tokens = countTokens(unit.section) + 1);
    }
    return tokens <= chunkSize / 8 ? tokens : 0;
  };
  let current: Unit[] = [];
  let used = 0;
  const start = (units: Unit[]) => {
    current = units;
    used = units.length === 0 ? 0 : headingTokens(units[0]!) + sum(units);
  };
  for (const unit of units(pages, chunkSize)) {
    const boundary = (everyPage && unit.pageStart) ||
      ((unit.isHeading || unit.pageStart) && used >= minTokens);
    if (current.length > 0 && (boundary || used + unit.tokens + 1 > chunkSize)) {
      const full = current;
      // A heading alone (a slide of a title) makes no chunk where the next starts with it.
      const heads = full.length === 1 && full[0]!.isHeading &&
        unit.section === full[0]!.section && (unit.isHeading || headingTokens(unit) > 0);
      if (!heads) chunks.push(chunkOf(full, headingTokens(full[0]!) > 0));
      let carried: Unit[] = [];
      if (!boundary) {
        // The last sentences of the same page, whole, within the overlap and leaving room.
        for (let i = full.length - 1; i > 0; i--) {
          const unitOf = full[i]!;
          if (unitOf.page !== unit.page || unitOf.isHeading) break;
          const next = [unitOf, ...carried];
          if (
            sum(next) > chunkOverlap ||
            headingTokens(next[0]!) + sum(next) + unit.tokens + 1 > chunkSize
          ) break;
          carried = next;
        }
      }
      start(carried);
    }
    if (current.length === 0) start([unit]);
    else {
      current.push(unit);
      used += unit.tokens + 1;
    }
  }
  if (current.length > 0) chunks.push(chunkOf(current, headingTokens(current[0]!) > 0));
  // Counted before any chunk is embedded, which is the costly part.
  if (chunks.length > maxChunks) throw tooManyChunks(chunks.length, { ...options, maxChunks });
  return chunks;
}

function sum(units: readonly Unit[]): number {
  return units.reduce((total, unit) => total + unit.tokens + 1, 0);
}

function chunkOf(units: readonly Unit[], withHeading: boolean): Chunk {
  let text = withHeading ? `${units[0]!.section}\n\n` : "";
  const offsets: number[] = [];
  units.forEach((unit, i) => {
    if (i > 0 && unit.paragraph) text = `${text.trimEnd()}\n\n`;
    offsets.push(text.length);
    text += unit.text;
  });
  text = text.trimEnd();
  const numbers = new Set<number>();
  for (const unit of units) if (unit.page !== null) numbers.add(unit.page);
  return {
    text,
    pageNumbers: [...numbers].sort((a, b) => a - b),
    numTokens: joinedTokens(text, units, offsets),
  };
}

/**
 * The tokens of a chunk's text, as {@linkcode countTokens} counts them: each
 * unit's tokens between its first and last cut as measured before, which its
 * text keeps in the chunk (only blank space is trimmed from a chunk's end, and
 * a cut has a letter before it), and the text between them read again.
 */
function joinedTokens(text: string, units: readonly Unit[], offsets: readonly number[]): number {
  let tokens = 0;
  let from = 0;
  units.forEach(({ measured }, i) => {
    if (measured.first < 0) return;
    const start = offsets[i]! + measured.first;
    const end = offsets[i]! + measured.last;
    if (start < from || !isCut(text, start) || !isCut(text, end)) return;
    tokens += countTokens(text.slice(from, start)) + measured.inner;
    from = end;
  });
  return tokens + countTokens(text.slice(from));
}

/** The units of the pages: paragraphs, or the sentences and windows of words of long ones. */
function* units(pages: readonly Page[], chunkSize: number): Generator<Unit> {
  let section: string | undefined;
  // Room for a paragraph's separator and the rounding of tokens at the seams.
  const limit = Math.max(1, chunkSize - 2);
  for (const page of pages) {
    let pageStart = true;
    for (const block of pageBlocks(page.text)) {
      // It names every section, so it would match questions about any of them, and answers none.
      if (block.contents) continue;
      if (block.heading !== undefined) section = block.heading;
      const common = { page: page.number, isHeading: block.heading !== undefined, section };
      // A block that may be longer than a chunk keeps its pieces, to cut it into windows.
      const measured = measureTokens(block.text, block.text.length > limit);
      const pieces = measured.tokens <= limit
        ? [{ text: block.text, tokens: measured.tokens, measured }]
        : split(block.text, limit, measured);
      for (const [i, piece] of pieces.entries()) {
        yield { ...common, ...piece, paragraph: i === 0, pageStart: pageStart && i === 0 };
      }
      pageStart = false;
    }
  }
}

/**
 * A paragraph longer than `limit` tokens in sentences, and a longer sentence
 * in windows of whole words (of tokens for a word longer than a window).
 */
function split(
  paragraph: string,
  limit: number,
  measured: MeasuredText,
): { text: string; tokens: number; measured: MeasuredText }[] {
  const pieces: { text: string; tokens: number; measured: MeasuredText }[] = [];
  for (const sentence of sentences(paragraph)) {
    const ofSentence = sentence === paragraph ? measured : measureTokens(sentence);
    if (ofSentence.tokens <= limit) {
      pieces.push({ text: sentence, tokens: ofSentence.tokens, measured: ofSentence });
      continue;
    }
    const { pieces: ofPieces } = ofSentence.pieces ? ofSentence : measureTokens(sentence, true);
    // Without pieces for a text that may hold a special token, measured whole.
    const windows = ofPieces
      ? pieceWindows(sentence, ofPieces, limit)
      : tokenWindows(sentence, limit);
    for (const window of windows) pieces.push({ ...window, tokens: window.measured.tokens });
  }
  return pieces;
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

export { pageNumbersToLocation } from "./page_location.ts";
export { countTokens } from "./token_counts.ts";
