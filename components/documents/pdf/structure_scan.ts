/**
 * The page tree and the content streams of a PDF, counted from its bytes without parsing them:
 * every `/Kids [...]` and `/Contents` of the file and of its object streams. The guard that runs
 * before pdfjs (`checkPdfStreams`) counts with it, since pdfjs walks a page tree and reads a page's
 * streams however many there are.
 * @module
 */
import { Buffer } from "node:buffer";
import {
  formatCount,
  MAX_CONTENT_STREAMS,
  MAX_PAGE_CONTENT_BYTES,
  MAX_PAGE_CONTENT_STREAMS,
  MAX_PAGE_REPEATS,
  MAX_PAGE_TREE_ENTRIES,
  PdfLimitError,
} from "./limits.ts";

const REFERENCE = /(\d+)\s+\d+\s+R/g;
const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * Counts what the `/Kids` and `/Contents` entries of a file list, refusing it as soon as a count
 * passes its limit. An object that an update of the file replaced still has its old version in the
 * bytes, which counts too: the limits are far above what a file needs even so.
 */
export class StructureScan {
  #entries = 0;
  readonly #listed = new Map<number, number>();
  #contentStreams = 0;
  /** The objects of each page's content streams, as the pages list them. */
  readonly #contents: number[][] = [];

  /**
   * Counts the entries in `bytes`: the file's, or an object stream's once inflated.
   *
   * @throws {PdfLimitError} once the page tree has more entries than `MAX_PAGE_TREE_ENTRIES`,
   * lists one object more than `MAX_PAGE_REPEATS` times, or pages list more content streams than
   * `MAX_PAGE_CONTENT_STREAMS` (one) or `MAX_CONTENT_STREAMS` (all)
   */
  scan(bytes: Uint8Array): void {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (const refs of arrays(buffer, "/Kids")) this.#kids(refs);
    for (const refs of arrays(buffer, "/Contents", { single: true })) this.#page(refs);
  }

  /**
   * Refuses a page whose content streams inflate to more than `MAX_PAGE_CONTENT_BYTES` together,
   * given the size of each stream object: inflated, or as stored where the guard does not inflate.
   *
   * @throws {PdfLimitError}
   */
  checkContentBytes(sizes: ReadonlyMap<number, number>): void {
    for (const objects of this.#contents) {
      let bytes = 0;
      for (const object of objects) bytes += sizes.get(object) ?? 0;
      if (bytes > MAX_PAGE_CONTENT_BYTES) {
        throw new PdfLimitError(
          `a page's content inflates to more than ${MAX_PAGE_CONTENT_BYTES / 2 ** 20} MiB`,
        );
      }
    }
  }

  #kids(refs: number[]): void {
    for (const ref of refs) {
      if (++this.#entries > MAX_PAGE_TREE_ENTRIES) {
        throw new PdfLimitError(
          `its page tree has more than ${formatCount(MAX_PAGE_TREE_ENTRIES)} entries`,
        );
      }
      const times = (this.#listed.get(ref) ?? 0) + 1;
      this.#listed.set(ref, times);
      if (times > MAX_PAGE_REPEATS) {
        throw new PdfLimitError(
          `its page tree lists one page more than ${formatCount(MAX_PAGE_REPEATS)} times`,
        );
      }
    }
  }

  #page(refs: number[]): void {
    if (refs.length > MAX_PAGE_CONTENT_STREAMS) {
      throw new PdfLimitError(
        `a page has more than ${formatCount(MAX_PAGE_CONTENT_STREAMS)} content streams`,
      );
    }
    this.#contentStreams += refs.length;
    if (this.#contentStreams > MAX_CONTENT_STREAMS) {
      throw new PdfLimitError(
        `it has more than ${formatCount(MAX_CONTENT_STREAMS)} content streams`,
      );
    }
    this.#contents.push(refs);
  }
}

/**
 * The object numbers of each array of references that follows `key` (`/Kids [1 0 R 2 0 R]`), and,
 * with `single`, of each lone reference that does (`/Contents 5 0 R`, one). Each byte is looked at
 * a bounded number of times, however the arrays are made: an array never closed ends the search.
 */
function* arrays(
  buffer: Buffer,
  key: string,
  { single = false }: { single?: boolean } = {},
): Generator<number[]> {
  for (let from = 0;;) {
    const found = buffer.indexOf(key, from, "latin1");
    if (found < 0) return;
    let at = found + key.length;
    while (WHITESPACE.has(buffer[at]!)) at++;
    if (buffer[at] === OPEN_ARRAY) {
      const end = buffer.indexOf(CLOSE_ARRAY, at);
      if (end < 0) return;
      yield references(buffer.toString("latin1", at + 1, end));
      from = end + 1;
    } else {
      // A lone reference is short: three tokens.
      const lone = single ? /^(\d+)\s+\d+\s+R/.exec(buffer.toString("latin1", at, at + 64)) : null;
      if (lone) yield [Number(lone[1])];
      from = at;
    }
  }
}

function references(text: string): number[] {
  return Array.from(text.matchAll(REFERENCE), (match) => Number(match[1]));
}
