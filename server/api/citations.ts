/**
 * The sources an answer cites: its `[n]` markers (`[2]`, `[1, 2]`, `[1][3]`),
 * read as the answer streams, where a marker may be cut between two chunks.
 * A number is a source's rank in the answer's sources, from 1; a marker whose
 * number has no source is not a citation (the text still shows it, and the
 * web UI flags it).
 * @module
 */

/** The longest marker read: `[` and up to this many digits, commas and spaces, then `]`. */
const MAX_MARKER = 40;

/** A whole marker: numbers separated by commas (or semicolons) and spaces. */
const MARKER = /^\[\s*\d{1,3}(?:\s*[,;]\s*\d{1,3})*\s*\]$/;

/** `[` and what may follow it in a marker, closed or not yet: read from a `[`, it stops early. */
const MARKER_START = /\[[\d\s,;]*(\])?/y;

/**
 * Reads the citations of an answer chunk by chunk.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Citations } from "./citations.ts";
 * const citations = new Citations(3);
 * citations.read("Cardamom [");
 * citations.read("2] in December [1, 2][7].");
 * assert.deepEqual(citations.cited, [2, 1]);
 * ```
 */
export class Citations {
  readonly #sources: number;
  readonly #cited: number[] = [];
  /** The start of a marker that the next chunk may complete: `[1, ` */
  #pending = "";

  /** `sources`: how many sources the answer has. */
  constructor(sources: number) {
    this.#sources = sources;
  }

  /** The sources cited so far, by rank from 1, each once, in the order first cited. */
  get cited(): number[] {
    return [...this.#cited];
  }

  /** Reads the next chunk of the answer, in one pass over it. */
  read(chunk: string): void {
    const text = this.#pending + chunk;
    this.#pending = "";
    let from = 0;
    while (true) {
      const open = text.indexOf("[", from);
      if (open < 0) return;
      MARKER_START.lastIndex = open;
      const [start, closed] = MARKER_START.exec(text)!;
      const end = open + start.length;
      if (closed) {
        if (MARKER.test(start)) {
          for (const number of start.match(/\d+/g)!) this.#cite(Number(number));
        }
        from = end;
      } else if (end === text.length) {
        // The rest may be a marker that the next chunk closes.
        if (start.length < MAX_MARKER) this.#pending = start;
        return;
      } else {
        from = open + 1;
      }
    }
  }

  #cite(number: number): void {
    if (number < 1 || number > this.#sources || this.#cited.includes(number)) return;
    this.#cited.push(number);
  }
}

/**
 * The sources a whole text cites, as {@linkcode Citations} reads them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { citationsOf } from "./citations.ts";
 * assert.deepEqual(citationsOf("See [3] and [1; 3], not [x] or [4].", 3), [3, 1]);
 * ```
 */
export function citationsOf(text: string, sources: number): number[] {
  const citations = new Citations(sources);
  citations.read(text);
  return citations.cited;
}
