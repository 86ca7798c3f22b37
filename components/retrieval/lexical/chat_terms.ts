/**
 * A chat's postings merged into one index, for a chat of many indexes: a
 * term's postings in 1,000 indexes are 1,000 short runs in as many places of
 * memory, and finding them read each index's keys; a question whose memory
 * went cold between questions spent most of its full-text search there
 * (some 4 ms over 100,000 chunks, where adding the weights took 1). Merged,
 * a term is one lookup and its postings one run, the chat's chunks numbered
 * as one list. Made at a chat's first question and kept for the chats
 * searched last.
 * @module
 */
import { ChatViews } from "../chat_views.ts";

/**
 * An index's terms, as `TermPostings` gives them: keys ascending, and where
 * each one's postings start and end in its postings; and its chunks' lengths.
 */
export interface IndexTerms {
  readonly terms: { keys: Float64Array; starts: Uint32Array };
  /** Each posting: its chunk times 2^countBits, plus its count. */
  readonly postingsOf: Uint32Array;
  readonly lengths: Uint32Array;
}

/** Postings as arrays: the parts of one index. */
export interface MergedTerms {
  keys: Float64Array;
  starts: Uint32Array;
  postings: Uint32Array;
  lengths: Uint32Array;
}

// A chat of fewer indexes looks its terms up in each: it costs less than merging them.
const MIN_INDEXES = 32;
// The most bytes kept, for the chats searched last: one chat of some 130,000 chunks.
const MAX_BYTES = 128 * 2 ** 20;

const chats = new ChatViews<IndexTerms, IndexTerms>(MAX_BYTES);

/**
 * The postings of a chat of many indexes merged into one index, kept from an
 * earlier search or made now by `make` of {@linkcode mergeTerms}' arrays;
 * undefined for a chat of a few indexes, or of more chunks than a posting
 * can number, or too large to keep.
 */
export function mergedTerms<T extends IndexTerms>(
  indexes: readonly T[],
  countBits: number,
  make: (merged: MergedTerms) => T,
): T | undefined {
  if (indexes.length < MIN_INDEXES) return undefined;
  const kept = chats.find(indexes);
  if (kept) return kept as T;
  let size = 0;
  let bytes = 0;
  for (const index of indexes) {
    size += index.lengths.length;
    bytes += index.postingsOf.byteLength + index.lengths.byteLength + 12 * index.terms.keys.length;
  }
  if (size > 2 ** (32 - countBits) || bytes > MAX_BYTES) return undefined;
  return chats.add(indexes, bytes, () => make(mergeTerms(indexes, countBits))) as T;
}

/**
 * The postings of `indexes` as one index's: every term once, its postings
 * those of each index in turn, a chunk numbered after all the chunks of the
 * indexes before its own; the chunks' lengths end to end.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeTerms } from "./chat_terms.ts";
 * import { COUNT_BITS, FTS5, TermPostings } from "./term_postings.ts";
 * const parts = [
 *   await TermPostings.build(["bread and butter", "rye bread"], FTS5),
 *   await TermPostings.build(["butter churns"], FTS5),
 * ];
 * const whole = await TermPostings.build(["bread and butter", "rye bread", "butter churns"], FTS5);
 * const merged = mergeTerms(parts, COUNT_BITS);
 * assert.deepEqual(merged.keys, whole.terms.keys);
 * assert.deepEqual(merged.postings, whole.postingsOf);
 * assert.deepEqual(merged.lengths, whole.lengths);
 * ```
 */
export function mergeTerms(indexes: readonly IndexTerms[], countBits: number): MergedTerms {
  // Each index's terms numbered in the order first met; how many postings each has.
  const table = new KeyTable(
    indexes.reduce((most, index) => Math.max(most, index.terms.keys.length), 16),
  );
  const termOf = new Uint32Array(indexes.reduce((sum, index) => sum + index.terms.keys.length, 0));
  let counts = new Uint32Array(1024);
  let entry = 0;
  for (const { terms: { keys, starts } } of indexes) {
    for (let t = 0; t < keys.length; t++) {
      const term = table.number(keys[t]!);
      if (term >= counts.length) {
        const grown = new Uint32Array(2 * counts.length);
        grown.set(counts);
        counts = grown;
      }
      counts[term]! += starts[t + 1]! - starts[t]!;
      termOf[entry++] = term;
    }
  }
  // The terms ascending by key, as an index keeps them.
  const keys = table.keys().sort();
  const rankOf = new Uint32Array(keys.length);
  keys.forEach((key, rank) => rankOf[table.number(key)] = rank);
  const starts = new Uint32Array(keys.length + 1);
  for (let term = 0; term < keys.length; term++) starts[rankOf[term]! + 1] = counts[term]!;
  for (let rank = 0; rank < keys.length; rank++) starts[rank + 1]! += starts[rank]!;

  const next = starts.slice(0, keys.length);
  const postings = new Uint32Array(starts[keys.length]!);
  const lengths = new Uint32Array(indexes.reduce((sum, index) => sum + index.lengths.length, 0));
  entry = 0;
  let first = 0;
  for (const { terms: { keys, starts: runs }, postingsOf, lengths: own } of indexes) {
    const offset = first * 2 ** countBits;
    for (let t = 0; t < keys.length; t++) {
      const rank = rankOf[termOf[entry++]!]!;
      let at = next[rank]!;
      for (let p = runs[t]!; p < runs[t + 1]!; p++) postings[at++] = postingsOf[p]! + offset;
      next[rank] = at;
    }
    lengths.set(own, first);
    first += own.length;
  }
  return { keys, starts, postings, lengths };
}

/** Term keys numbered from 0 in the order first met: an open-addressing table. */
class KeyTable {
  #mask: number;
  #slots: Int32Array;
  #keys: Float64Array;
  #size = 0;

  constructor(expected: number) {
    const capacity = 2 ** Math.ceil(Math.log2(2 * expected));
    this.#mask = capacity - 1;
    this.#slots = new Int32Array(capacity).fill(-1);
    this.#keys = new Float64Array(capacity / 2);
  }

  /** The number of `key`, given now when it is new. */
  number(key: number): number {
    for (let slot = slotOf(key, this.#mask);; slot = (slot + 1) & this.#mask) {
      const term = this.#slots[slot]!;
      if (term < 0) break;
      if (this.#keys[term] === key) return term;
    }
    if (2 * (this.#size + 1) > this.#slots.length) this.#grow();
    let slot = slotOf(key, this.#mask);
    while (this.#slots[slot]! >= 0) slot = (slot + 1) & this.#mask;
    this.#slots[slot] = this.#size;
    this.#keys[this.#size] = key;
    return this.#size++;
  }

  /** The keys, by their numbers. */
  keys(): Float64Array {
    return this.#keys.slice(0, this.#size);
  }

  #grow(): void {
    const keys = this.#keys.subarray(0, this.#size);
    this.#mask = 2 * this.#slots.length - 1;
    this.#slots = new Int32Array(this.#mask + 1).fill(-1);
    const grown = new Float64Array((this.#mask + 1) / 2);
    grown.set(keys);
    this.#keys = grown;
    keys.forEach((key, term) => {
      let slot = slotOf(key, this.#mask);
      while (this.#slots[slot]! >= 0) slot = (slot + 1) & this.#mask;
      this.#slots[slot] = term;
    });
  }
}

/** A key's first slot: its two 32-bit hashes mixed (`termKey()` makes them). */
function slotOf(key: number, mask: number): number {
  return (Math.floor(key / 2 ** 32) ^ (key >>> 0)) & mask;
}
