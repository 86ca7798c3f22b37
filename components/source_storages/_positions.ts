/**
 * Positions in the scores of several lists laid end to end (the chunks of a
 * chat's documents, one list a document), and the best `k` of them in one
 * pass without sorting them all: the in-memory searches of the chunking
 * storages rank every chunk of a chat, and take only the first hundred.
 * @module
 */

/**
 * The positions of the `k` highest scores, best first; ties go to the lower
 * position, so the order is the same on every run. Positions whose score is
 * not above `floor` are left out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { topPositions } from "./_positions.ts";
 * assert.deepEqual(topPositions(Float64Array.of(0.5, 2, 0, 2, 1), 3), [1, 3, 4]);
 * assert.deepEqual(topPositions(Float64Array.of(0.5, 2, 0), 5), [1, 0]);
 * ```
 */
export function topPositions(
  scores: ArrayLike<number>,
  k: number,
  floor = 0,
): number[] {
  if (k <= 0) return [];
  // A min-heap of the best so far: its root is the one a better score replaces.
  const heap = new Int32Array(Math.min(k, scores.length));
  let size = 0;
  // Whether position a ranks below position b.
  const below = (a: number, b: number) =>
    scores[a]! < scores[b]! || (scores[a] === scores[b] && a > b);
  for (let position = 0; position < scores.length; position++) {
    const score = scores[position]!;
    if (!(score > floor)) continue;
    if (size < heap.length) {
      let at = size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!below(position, heap[parent]!)) break;
        heap[at] = heap[parent]!;
        at = parent;
      }
      heap[at] = position;
    } else if (score > scores[heap[0]!]!) {
      // An equal score comes later, so it loses the tie and stays out.
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= size) break;
        const right = left + 1;
        const child = right < size && below(heap[right]!, heap[left]!) ? right : left;
        if (!below(heap[child]!, position)) break;
        heap[at] = heap[child]!;
        at = child;
      }
      heap[at] = position;
    }
  }
  return Array.from(heap.subarray(0, size)).sort((a, b) => scores[b]! - scores[a]! || a - b);
}

/**
 * Where each of several lists starts when they are laid end to end, and,
 * last, where the final one ends.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startsOf } from "./_positions.ts";
 * assert.deepEqual(startsOf([{ size: 3 }, { size: 0 }, { size: 2 }]), Uint32Array.of(0, 3, 3, 5));
 * ```
 */
export function startsOf(lists: readonly { size: number }[]): Uint32Array {
  const starts = new Uint32Array(lists.length + 1);
  lists.forEach((list, i) => starts[i + 1] = starts[i]! + list.size);
  return starts;
}

/**
 * Which of several lists laid end to end holds a position, given where each
 * starts (and, last, where the final one ends).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { indexAt } from "./_positions.ts";
 * assert.equal(indexAt(Uint32Array.of(0, 3, 3, 5), 3), 2);
 * ```
 */
export function indexAt(starts: Uint32Array, position: number): number {
  let low = 0;
  let high = starts.length - 2;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (starts[middle]! <= position) low = middle;
    else high = middle - 1;
  }
  return low;
}
