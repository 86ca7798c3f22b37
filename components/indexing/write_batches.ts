/**
 * Writes made together: what is added while a write is under way waits for
 * the next one, and goes in it with all else added meanwhile. For a store
 * whose every write costs about the same however few its rows (each of
 * LanceDB's adds a file that every read opens until a compaction).
 * @module
 */

/**
 * Items written in batches.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WriteBatches } from "./write_batches.ts";
 * let queue: Promise<unknown> = Promise.resolve();
 * const writes: number[][] = [];
 * const batches = new WriteBatches<number>(
 *   async (items) => void writes.push(items),
 *   (write) => queue = queue.then(write),
 * );
 * await batches.add(1);
 * await Promise.all([batches.add(2), batches.add(3)]);
 * assert.deepEqual(writes, [[1], [2, 3]]);
 * ```
 */
export class WriteBatches<T> {
  readonly #write: (items: T[]) => Promise<void>;
  readonly #turn: (write: () => Promise<void>) => Promise<unknown>;
  #waiting: { item: T; written: PromiseWithResolvers<void> }[] = [];

  /**
   * Batches that `write` writes, each in a turn that `turn` gives it: a
   * store's turn of its writes, which runs them one at a time.
   */
  constructor(
    write: (items: T[]) => Promise<void>,
    turn: (write: () => Promise<void>) => Promise<unknown>,
  ) {
    this.#write = write;
    this.#turn = turn;
  }

  /** Writes `item` with the others added until its batch's turn; settles as that write does. */
  add(item: T): Promise<void> {
    const written = Promise.withResolvers<void>();
    this.#waiting.push({ item, written });
    // The first added since the last batch began takes the next turn, for all added by then.
    if (this.#waiting.length === 1) {
      this.#turn(async () => {
        const batch = this.#waiting.splice(0);
        await this.#write(batch.map((waiting) => waiting.item)).then(
          () => batch.forEach((waiting) => waiting.written.resolve()),
          (error) => batch.forEach((waiting) => waiting.written.reject(error)),
        );
      });
    }
    return written.promise;
  }
}
