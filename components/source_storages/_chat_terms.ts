/**
 * Where each term's postings lie in each of a chat's indexes, for a chat of
 * many indexes: looking a query's term up in each of 1,000 indexes reads
 * each one's keys at a few places apart in memory (some 3 ms a question over
 * 100,000 chunks), where this reads one run of entries a term. A large
 * chat's terms that questions ask for have their postings laid end to end
 * too, the chat's chunks numbered as one list (kept for the terms asked
 * last): a term's postings in 1,000 indexes are 1,000 short runs in as many
 * places of memory, which a question whose memory went cold between
 * questions read at half the speed of one run.
 * @module
 */
import { ChatViews } from "./_chat_views.ts";

/**
 * An index's terms, as `TermPostings` gives them: keys ascending, and where
 * each one's postings start and end in its postings; and its chunks' lengths.
 */
export interface IndexTerms {
  readonly terms: { keys: Float64Array; starts: Uint32Array };
  /** Each posting: its chunk times 2^COUNT_BITS, plus its count. */
  readonly postingsOf: Uint32Array;
  readonly lengths: Uint32Array;
}

/** A term's postings in a chat's chunks laid end to end, and the chunks' lengths. */
export interface LaidPostings {
  /** Each posting: its position among the chat's chunks times 2^countBits, plus its count. */
  postings: Uint32Array;
  lengths: Uint32Array;
}

// A chat of fewer indexes looks its terms up in each: it costs less than making this.
const MIN_INDEXES = 32;
// The most bytes kept, for the chats searched last: one chat of some 150,000 chunks.
const MAX_BYTES = 64 * 2 ** 20;
// What an entry takes: its key, its index, where its postings start and end.
const ENTRY_BYTES = 8 + 3 * 4;
// Entries a bucket, on average.
const BUCKET_ENTRIES = 8;
// A chat of this many chunks or more has the postings of the terms asked for
// laid end to end, within this many bytes a chat (the terms asked last kept).
const LAID_FROM = 10_000;
const LAID_BYTES = 32 * 2 ** 20;

const chats = new ChatViews<IndexTerms, ChatTerms>(MAX_BYTES);

/**
 * Every term of a chat's indexes, an entry for each index that holds it, in
 * buckets by the term's key: a term's entries are in one bucket, in the order
 * of the indexes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ChatTerms } from "./_chat_terms.ts";
 * import { FTS5, termKey, TermPostings } from "./_term_postings.ts";
 * const indexes = [
 *   await TermPostings.build(["bread and butter", "rye bread"], FTS5),
 *   await TermPostings.build(["butter churns"], FTS5),
 * ];
 * const bounds = new Uint32Array(4);
 * assert.equal(ChatTerms.build(indexes).bounds(termKey("butter"), bounds), 2);
 * assert.deepEqual([...bounds], [...indexes[0]!.range(termKey("butter")), ...indexes[1]!.range(termKey("butter"))]);
 * ```
 */
export class ChatTerms {
  readonly #mask: number;
  // Bucket b's entries are at starts[b]..starts[b + 1] of the arrays after it.
  readonly #starts: Uint32Array;
  readonly #keys: Float64Array;
  readonly #indexes: Uint32Array;
  readonly #froms: Uint32Array;
  readonly #tos: Uint32Array;
  // The laid postings by term key, the latest asked last; their bytes.
  readonly #laid = new Map<number, Uint32Array>();
  #laidBytes = 0;
  #lengths: Uint32Array | undefined;

  private constructor(mask: number, starts: Uint32Array, entries: number) {
    this.#mask = mask;
    this.#starts = starts;
    this.#keys = new Float64Array(entries);
    this.#indexes = new Uint32Array(entries);
    this.#froms = new Uint32Array(entries);
    this.#tos = new Uint32Array(entries);
  }

  /** The terms of a chat of many indexes, kept from an earlier search or made now; none for a few indexes. */
  static of(indexes: readonly IndexTerms[]): ChatTerms | undefined {
    if (indexes.length < MIN_INDEXES) return undefined;
    const kept = chats.find(indexes);
    if (kept) return kept;
    const bytes = ENTRY_BYTES * entriesOf(indexes);
    return bytes > MAX_BYTES ? undefined : chats.add(indexes, bytes, ChatTerms.build);
  }

  /** The terms of `indexes`. */
  static build(indexes: readonly IndexTerms[]): ChatTerms {
    const entries = entriesOf(indexes);
    const buckets = 2 ** Math.max(4, Math.ceil(Math.log2(entries / BUCKET_ENTRIES)));
    const mask = buckets - 1;
    const starts = new Uint32Array(buckets + 1);
    for (const index of indexes) {
      for (const key of index.terms.keys) starts[bucketOf(key, mask) + 1]!++;
    }
    for (let b = 0; b < buckets; b++) starts[b + 1]! += starts[b]!;
    const made = new ChatTerms(mask, starts, entries);
    const next = starts.slice(0, buckets);
    indexes.forEach(({ terms: { keys, starts: postings } }, i) => {
      for (let t = 0; t < keys.length; t++) {
        const at = next[bucketOf(keys[t]!, mask)]!++;
        made.#keys[at] = keys[t]!;
        made.#indexes[at] = i;
        made.#froms[at] = postings[t]!;
        made.#tos[at] = postings[t + 1]!;
      }
    });
    return made;
  }

  /**
   * Sets where the postings of the term `key` lie in each index (index i's at
   * `bounds[2i]` and `bounds[2i + 1]`, as `TermPostings.range()`
   * gives them; left as they are in an index without the term), and returns
   * how many they are in all.
   */
  bounds(key: number, bounds: Uint32Array): number {
    const bucket = bucketOf(key, this.#mask);
    let postings = 0;
    for (let at = this.#starts[bucket]!; at < this.#starts[bucket + 1]!; at++) {
      if (this.#keys[at] !== key) continue;
      const i = this.#indexes[at]!;
      bounds[2 * i] = this.#froms[at]!;
      bounds[2 * i + 1] = this.#tos[at]!;
      postings += this.#tos[at]! - this.#froms[at]!;
    }
    return postings;
  }

  /**
   * The postings of `term` (its `bounds` as {@linkcode ChatTerms.bounds} set
   * them, `frequency` of them in all) in `indexes`, the chat of these terms,
   * laid end to end, chunk i of index j numbered `starts[j] + i`; made at the
   * first ask and kept, the terms asked longest ago dropped beyond 32 MiB.
   * Undefined for a chat of fewer than 10,000 chunks, or of more than its
   * postings can number.
   */
  laid(
    indexes: readonly IndexTerms[],
    starts: Uint32Array,
    { key, bounds, frequency }: { key: number; bounds: Uint32Array; frequency: number },
    countBits: number,
  ): LaidPostings | undefined {
    const size = starts[indexes.length]!;
    if (size < LAID_FROM || size > 2 ** (32 - countBits) || 4 * frequency > LAID_BYTES) {
      return undefined;
    }
    this.#lengths ??= layLengths(indexes, starts);
    let postings = this.#laid.get(key);
    if (postings) this.#laid.delete(key);
    else {
      postings = new Uint32Array(frequency);
      let at = 0;
      indexes.forEach((index, i) => {
        const offset = starts[i]! * 2 ** countBits;
        for (let p = bounds[2 * i]!; p < bounds[2 * i + 1]!; p++) {
          postings![at++] = index.postingsOf[p]! + offset;
        }
      });
      this.#laidBytes += postings.byteLength;
      for (const [oldest, each] of this.#laid) {
        if (this.#laidBytes <= LAID_BYTES) break;
        this.#laid.delete(oldest);
        this.#laidBytes -= each.byteLength;
      }
    }
    this.#laid.set(key, postings);
    return { postings, lengths: this.#lengths };
  }
}

/** The chunks' lengths of `indexes`, laid end to end. */
function layLengths(indexes: readonly IndexTerms[], starts: Uint32Array): Uint32Array {
  const lengths = new Uint32Array(starts[indexes.length]!);
  indexes.forEach((index, i) => lengths.set(index.lengths, starts[i]!));
  return lengths;
}

function entriesOf(indexes: readonly IndexTerms[]): number {
  return indexes.reduce((sum, index) => sum + index.terms.keys.length, 0);
}

/** A key's bucket: its two 32-bit hashes mixed (`termKey()` makes them). */
function bucketOf(key: number, mask: number): number {
  return (Math.floor(key / 2 ** 32) ^ (key >>> 0)) & mask;
}
