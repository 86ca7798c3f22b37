/**
 * What search keeps in memory of a store's indexes, the least
 * recently used dropped first once a budget of bytes is spent. An index is
 * immutable once stored, so an entry stays true until its index is removed,
 * and then is no longer asked for.
 * @module
 */

/**
 * The default budget of a storage's memory for searching, in bytes: about a
 * chat of 150,000 chunks.
 */
export const DEFAULT_SEARCH_MEMORY = 512 * 1024 * 1024;

/**
 * The default budget of a storage's memory for the passages of the chats
 * searched (their texts and vectors), beside the budget for searching: about a
 * chat of 120,000 passages that a question reads nothing of from the database,
 * so that a chat of the 100,000 svc is made to answer in milliseconds reads
 * none (LanceDB took 5 to 6 ms of a question to read the 40% past 256 MiB).
 */
export const DEFAULT_PASSAGE_MEMORY = 512 * 1024 * 1024;

/** Something kept in a {@linkcode SearchCache}, with what it costs. */
export interface Sized {
  /** The bytes it takes in memory. */
  readonly bytes: number;
  /**
   * Called when the cache drops it (for a newer entry, or deleted), to give
   * back memory that the garbage collector does not see. A search may still
   * hold it: it must still work after.
   */
  dropped?(): void;
}

/**
 * Entries by key, within a budget of bytes. The entries a search is using stay
 * alive while it holds them, whatever the cache drops.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SearchCache } from "./search_cache.ts";
 * const cache = new SearchCache<{ bytes: number }>(100);
 * cache.set("a", { bytes: 60 });
 * cache.set("b", { bytes: 60 });
 * assert.equal(cache.get("a"), undefined);
 * assert.equal(cache.get("b")?.bytes, 60);
 * ```
 */
export class SearchCache<T extends Sized> {
  /** The most bytes the entries take together (one entry larger than that is kept alone). */
  readonly budget: number;
  // Each entry with when it was last used: marking a use writes a number
  // rather than moving the entry to the end of the map. A chat of 1,000
  // documents asked again marks each index in two caches: 2,000 moves took
  // 0.20 ms a question, the caches cold, and 2,000 numbers 0.06.
  readonly #entries = new Map<string, { entry: T; used: number }>();
  #uses = 0;
  #bytes = 0;
  readonly #changed: () => void;

  /** A cache of `budget` bytes; `changed` is called whenever an entry is kept or dropped. */
  constructor(budget: number, changed: () => void = () => {}) {
    this.budget = budget;
    this.#changed = changed;
  }

  /** The bytes of the entries kept. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The entry under `key`, now the most recently used; undefined when not kept. */
  get(key: string): T | undefined {
    const held = this.#entries.get(key);
    if (held) held.used = ++this.#uses;
    return held?.entry;
  }

  /** Keeps `entry` under `key`, dropping the least recently used beyond the budget. */
  set(key: string, entry: T): void {
    if (this.#entries.get(key)?.entry === entry) return void this.get(key);
    this.delete(key);
    this.#entries.set(key, { entry, used: ++this.#uses });
    this.#bytes += entry.bytes;
    this.#changed();
    while (this.#bytes > this.budget) {
      const oldest = this.#leastRecentlyUsed(key);
      if (oldest === undefined) break;
      this.delete(oldest);
    }
  }

  /** Drops the entry under `key`, if any. */
  delete(key: string): void {
    const held = this.#entries.get(key);
    if (!held) return;
    this.#entries.delete(key);
    this.#bytes -= held.entry.bytes;
    this.#changed();
    held.entry.dropped?.();
  }

  /**
   * The key of the entry used longest ago but `kept`'s. Looked for among all
   * (a drop is rare beside a use: once a read from the database, which costs
   * far more than going through the entries).
   */
  #leastRecentlyUsed(kept: string): string | undefined {
    let oldest: string | undefined;
    let usedLast = Infinity;
    for (const [key, { used }] of this.#entries) {
      if (used < usedLast && key !== kept) [oldest, usedLast] = [key, used];
    }
    return oldest;
  }
}

// The plans kept: the chats of a server's last few questions.
const KEPT_PLANS = 8;

/**
 * What a backend read for its last searches (each index's entry, in order),
 * by their lists of keys: a chat asked again gives the same list object. The
 * eight latest are kept; a backend drops them all whenever one of its
 * {@linkcode SearchCache}s keeps or drops an entry, so that none holds what
 * a cache let go of.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SearchPlans } from "./search_cache.ts";
 * const plans = new SearchPlans<string>();
 * const keys = ["a", "b"];
 * plans.keep(keys, "plan");
 * assert.equal(plans.get(keys), "plan");
 * assert.equal(plans.get(["a", "b"]), undefined);
 * plans.clear();
 * assert.equal(plans.get(keys), undefined);
 * ```
 */
export class SearchPlans<P> {
  readonly #plans = new Map<readonly string[], P>();

  /** The plan kept for `keys` (this very list), now the latest. */
  get(keys: readonly string[]): P | undefined {
    const plan = this.#plans.get(keys);
    if (plan !== undefined) this.keep(keys, plan);
    return plan;
  }

  /** Keeps `plan` for `keys` as the latest, the oldest beyond eight dropped; gives it back. */
  keep(keys: readonly string[], plan: P): P {
    this.#plans.delete(keys);
    this.#plans.set(keys, plan);
    for (const oldest of this.#plans.keys()) {
      if (this.#plans.size <= KEPT_PLANS) break;
      this.#plans.delete(oldest);
    }
    return plan;
  }

  clear(): void {
    this.#plans.clear();
  }
}
