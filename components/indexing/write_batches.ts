/**
 * Writes in batches: an index's rows some at a time, other work on the
 * thread let in between ({@linkcode batches}); and writes made together,
 * what is added while a write is under way waiting for the next one, and
 * going in it with all else added meanwhile ({@linkcode WriteBatches}), for a
 * store whose every write costs about the same however few its rows (each of
 * LanceDB's adds a file that every read opens until a compaction).
 * @module
 */
import { Turns } from "../core/turns.ts";

/**
 * The items in batches of `size`, each with the position of its first, one
 * after another; between two, other work on the thread (a request) gets its
 * turn once these held it a while (`Turns`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { batches } from "./write_batches.ts";
 * const starts: number[] = [];
 * for await (const { start } of batches([1, 2, 3, 4, 5], 2)) starts.push(start);
 * assert.deepEqual(starts, [0, 2, 4]);
 * ```
 */
export async function* batches<T>(
  items: readonly T[],
  size: number,
): AsyncGenerator<{ start: number; items: T[] }> {
  const turns = new Turns();
  for (let start = 0; start < items.length; start += size) {
    if (start > 0) await turns.maybe();
    yield { start, items: items.slice(start, start + size) };
  }
}

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
