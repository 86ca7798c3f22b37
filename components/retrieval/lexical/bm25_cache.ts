/**
 * The term statistics of the indexes searched lately, kept in memory within a
 * bound, for a store that has no ranked full-text search (Chroma,
 * `remote_search.ts`). An index never changes under its key, so nothing kept goes stale.
 * @module
 */
import { Bm25Index } from "./bm25.ts";

/** Term statistics kept in memory, in (term, chunk) pairs: some tens of megabytes. */
const MAX_POSTINGS = 4_000_000;

/**
 * Indexes' term statistics by key, the least recently used dropped first once
 * they hold more than `maxPostings` pairs (the one used last is always kept).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Bm25Cache } from "./bm25_cache.ts";
 * const cache = new Bm25Cache();
 * let reads = 0;
 * const texts = () => Promise.resolve((reads++, ["a loaf of bread", "a fish"]));
 * assert.equal((await cache.get("k", texts)).size, 2);
 * await cache.get("k", texts);
 * assert.equal(reads, 1);
 * ```
 */
export class Bm25Cache {
  readonly #maxPostings: number;
  // Least recently used first.
  readonly #indexes = new Map<string, Bm25Index>();

  constructor(maxPostings = MAX_POSTINGS) {
    this.#maxPostings = maxPostings;
  }

  /**
   * The statistics of the index under `key`, from memory, or from its chunks'
   * texts (in order) read by `texts`. An index without chunks is not kept.
   */
  async get(key: string, texts: () => Promise<readonly string[]>): Promise<Bm25Index> {
    const known = this.#indexes.get(key);
    if (known) {
      this.set(key, known);
      return known;
    }
    const index = Bm25Index.build(await texts());
    if (index.size > 0) this.set(key, index);
    return index;
  }

  /** Keeps an index's statistics as the most recently used, within the bound. */
  set(key: string, index: Bm25Index): void {
    this.#indexes.delete(key);
    this.#indexes.set(key, index);
    let total = [...this.#indexes.values()].reduce((sum, each) => sum + each.postingCount, 0);
    for (const [oldest, each] of this.#indexes) {
      if (total <= this.#maxPostings || oldest === key) break;
      this.#indexes.delete(oldest);
      total -= each.postingCount;
    }
  }

  /** Forgets an index removed from its store. */
  delete(key: string): void {
    this.#indexes.delete(key);
  }
}
