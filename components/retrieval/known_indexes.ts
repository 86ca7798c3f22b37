/**
 * Which stored index is under each key, as a store last read it (its id of
 * the index): a question finds its chat's indexes without a query, and
 * search names what it keeps of each by what the store read.
 * @module
 */

/** Options of {@linkcode KnownIndexes}. */
export interface KnownIndexesOptions<T> {
  /**
   * The most keys known; all are forgotten beyond it, and read again when asked for.
   * @default {100_000}
   */
  size?: number;
  /**
   * Whether two reads name the same stored index.
   * @default {Object.is}
   */
  same?: (a: T, b: T) => boolean;
  /** Told when a key's index was not known or changed (removed and made anew). */
  changed?: () => void;
}

/**
 * The stored indexes of keys as a store read them, kept while the store's
 * state is the same.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { KnownIndexes } from "./known_indexes.ts";
 * const known = new KnownIndexes<number>();
 * const read = (keys: string[]) => Promise.resolve(keys.map((key) => [key, key.length] as const));
 * assert.deepEqual(await known.of(["a", "bc"], read), [1, 2]);
 * ```
 */
export class KnownIndexes<T> {
  readonly #byKey = new Map<string, T>();
  readonly #size: number;
  readonly #same: (a: T, b: T) => boolean;
  readonly #changed?: () => void;
  #state: unknown;

  constructor(options: KnownIndexesOptions<T> = {}) {
    this.#size = options.size ?? 100_000;
    this.#same = options.same ?? Object.is;
    this.#changed = options.changed;
  }

  /**
   * The indexes of `keys` that the store holds, in the order of `keys`:
   * those known, and those `read` finds of the keys not known. All are read
   * again once `state` changed (a fresh object each time: at every call).
   */
  async of(
    keys: readonly string[],
    read: (missing: string[]) => Promise<Iterable<readonly [string, T]>>,
    state?: unknown,
  ): Promise<T[]> {
    if (!Object.is(state, this.#state)) {
      this.#byKey.clear();
      this.#state = state;
    }
    const missing = keys.filter((key) => !this.#byKey.has(key));
    if (missing.length > 0) {
      for (const [key, index] of await read(missing)) {
        this.learn(key, index);
      }
    }
    return keys.flatMap((key) => this.#byKey.has(key) ? [this.#byKey.get(key)!] : []);
  }

  /** Keeps the index that a store read under `key`. */
  learn(key: string, index: T): void {
    const known = this.#byKey.get(key);
    if (known !== undefined && this.#same(known, index)) return;
    if (this.#byKey.size >= this.#size) this.#byKey.clear();
    this.#byKey.set(key, index);
    this.#changed?.();
  }

  /** Forgets every index: some may be gone. */
  clear(): void {
    this.#byKey.clear();
  }
}
