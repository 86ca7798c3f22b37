/**
 * The UTF-8 bytes of texts sent again and again: a chat list that has not
 * changed is the very string the database kept (see `ReadCache`), and
 * encoding its hundreds of kilobytes at each request cost about as much as
 * sending them.
 * @module
 */

/**
 * The bytes of the last text encoded under each key, the most recently used
 * `size` keys kept, and only texts of at most `longest` characters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EncodedTexts } from "./encoded_texts.ts";
 * const texts = new EncodedTexts(8);
 * const first = texts.encode("ada", "[]");
 * assert.equal(texts.encode("ada", "[]"), first);
 * assert.deepEqual(texts.encode("ada", "[1]"), new TextEncoder().encode("[1]"));
 * ```
 */
export class EncodedTexts {
  readonly #size: number;
  readonly #longest: number;
  readonly #kept = new Map<string, { text: string; bytes: Uint8Array<ArrayBuffer> }>();
  readonly #encoder = new TextEncoder();

  constructor(size: number, longest = Infinity) {
    this.#size = size;
    this.#longest = longest;
  }

  /** The UTF-8 bytes of `text`, encoded again only when it differs from the last under `key`. */
  encode(key: string, text: string): Uint8Array<ArrayBuffer> {
    const kept = this.#kept.get(key);
    this.#kept.delete(key);
    // The same string is compared at once; an equal copy costs less to compare than to encode.
    const bytes = kept?.text === text ? kept.bytes : this.#encoder.encode(text);
    if (text.length > this.#longest) return bytes;
    this.#kept.set(key, { text, bytes });
    if (this.#kept.size > this.#size) this.#kept.delete(this.#kept.keys().next().value!);
    return bytes;
  }
}
