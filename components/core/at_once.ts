/**
 * Work over many items, some at a time: requests to a server that answers
 * several at once, without opening one per item.
 * @module
 */

/**
 * Runs `fn` over the items, at most `atOnce` at a time, each once; settles
 * when all have, and rejects with the first error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { forEachAtOnce } from "./at_once.ts";
 * const seen: number[] = [];
 * await forEachAtOnce([1, 2, 3], 2, async (item) => void seen.push(item));
 * assert.deepEqual(seen, [1, 2, 3]);
 * ```
 */
export async function forEachAtOnce<T>(
  items: readonly T[],
  atOnce: number,
  fn: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
}
