/**
 * A count of the changes to a libSQL database, and the reads remembered
 * while it stands still. The database thread counts every write it commits,
 * and every commit of another process to the same file that it notices (see
 * `watchChanges`), in memory it shares with the main thread; the main thread
 * answers a read again from memory while the count has not moved since it was
 * read, without a crossing to the thread.
 * @module
 */

/**
 * A count that moves with every change to one database, readable from every
 * thread that holds its buffer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ChangeCount } from "./change_count.ts";
 * const count = new ChangeCount();
 * const seen = new ChangeCount(count.buffer);
 * count.bump();
 * assert.equal(seen.value, 1);
 * ```
 */
export class ChangeCount {
  readonly #cells: Int32Array;

  /** A count at 0, or the count another thread shares through `buffer`. */
  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.#cells = new Int32Array(buffer);
  }

  /** The memory the count is kept in, to send to another thread. */
  get buffer(): SharedArrayBuffer {
    return this.#cells.buffer as SharedArrayBuffer;
  }

  /** The count now. */
  get value(): number {
    return Atomics.load(this.#cells, 0);
  }

  /** Counts a change. */
  bump(): void {
    Atomics.add(this.#cells, 0, 1);
  }
}

/**
 * Values read from a database, each kept with the count at which its read
 * began, and given back only while the count is still there: a change
 * committed since, or during the read, forgets it. The most recently used
 * `size` are kept.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ChangeCount, ReadCache } from "./change_count.ts";
 * const count = new ChangeCount();
 * const cache = new ReadCache<string>(count, 2);
 * let reads = 0;
 * const read = () => cache.read("ada", () => Promise.resolve(`list ${++reads}`));
 * assert.equal(await read(), "list 1");
 * assert.equal(await read(), "list 1");
 * count.bump();
 * assert.equal(await read(), "list 2");
 * ```
 */
export class ReadCache<T> {
  readonly #count: ChangeCount;
  readonly #size: number;
  readonly #kept = new Map<string, { value: T; at: number }>();

  constructor(count: ChangeCount, size: number) {
    this.#count = count;
    this.#size = size;
  }

  /**
   * The value kept under `key` if nothing changed since it was read, else
   * what `read` gives, which is kept unless `keep` refuses it.
   */
  async read(
    key: string,
    read: () => Promise<T>,
    keep: (value: T) => boolean = () => true,
  ): Promise<T> {
    const at = this.#count.value;
    const kept = this.#kept.get(key);
    this.#kept.delete(key);
    if (kept && kept.at === at && keep(kept.value)) {
      this.#kept.set(key, kept);
      return kept.value;
    }
    const value = await read();
    if (keep(value)) {
      this.#kept.set(key, { value, at });
      if (this.#kept.size > this.#size) this.#kept.delete(this.#kept.keys().next().value!);
    }
    return value;
  }
}
