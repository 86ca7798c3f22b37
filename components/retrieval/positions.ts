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
 * import { topPositions } from "./positions.ts";
 * assert.deepEqual(topPositions(Float64Array.of(0.5, 2, 0, 2, 1), 3), [1, 3, 4]);
 * assert.deepEqual(topPositions(Float64Array.of(0.5, 2, 0), 5), [1, 0]);
 * ```
 */
export function topPositions(
  scores: ArrayLike<number>,
  k: number,
  floor = 0,
): number[] {
  return Array.from(bestPositions(scores, k, floor)).sort((a, b) =>
    scores[b]! - scores[a]! || a - b
  );
}

/**
 * The positions of the `k` highest scores, as {@linkcode topPositions} finds
 * them, in the order of the positions.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bestPositions } from "./positions.ts";
 * assert.deepEqual(bestPositions(Float64Array.of(0.5, 2, 0, 2, 1), 3), Int32Array.of(1, 3, 4));
 * ```
 */
export function bestPositions(scores: ArrayLike<number>, k: number, floor = 0): Int32Array {
  if (k <= 0) return new Int32Array();
  const among = scores.length >= SAMPLED_FROM && k * SAMPLE_STEP <= scores.length
    ? reaching(scores, k, floor)
    : undefined;
  // A min-heap of the best so far: its root is the one a better score replaces.
  const heap = new Int32Array(Math.min(k, scores.length));
  let size = 0;
  // Whether position a ranks below position b.
  const below = (a: number, b: number) =>
    scores[a]! < scores[b]! || (scores[a] === scores[b] && a > b);
  const count = among?.length ?? scores.length;
  for (let i = 0; i < count; i++) {
    const position = among ? among[i]! : i;
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
  return heap.subarray(0, size).sort();
}

// A list this long or longer, of which the best k are at most one in
// SAMPLE_STEP, is first cut by a score read from a sample of it: over 100,000
// scores, the heap alone took 1.2 ms to find the best 1,000.
const SAMPLED_FROM = 4096;
const SAMPLE_STEP = 32;
// How far past the k-th best's expected place in the sample the cut is read.
const SAMPLE_MARGIN = 2;

/**
 * The positions, ascending, whose score is above `floor` and at least a cut
 * read from every SAMPLE_STEP-th score, where the sample puts the k-th best
 * with room to spare; undefined when fewer than `k` reach it (the cut was too
 * high: every position is then ranked). When `k` or more reach it, the best
 * `k` are among them, ties included: the k-th best score is at least the cut.
 */
function reaching(scores: ArrayLike<number>, k: number, floor: number): Int32Array | undefined {
  const sample = new Float64Array(Math.ceil(scores.length / SAMPLE_STEP));
  for (let i = 0; i < sample.length; i++) sample[i] = scores[i * SAMPLE_STEP]!;
  sample.sort();
  const place = Math.min(sample.length, Math.ceil((SAMPLE_MARGIN * k) / SAMPLE_STEP) + 1);
  const cut = sample[sample.length - place]!;
  const reached: number[] = [];
  for (let position = 0; position < scores.length; position++) {
    const score = scores[position]!;
    if (score >= cut && score > floor) reached.push(position);
  }
  return reached.length >= k ? Int32Array.from(reached) : undefined;
}

/**
 * Zeroed scores in one memory, used again at each call rather than allocated
 * anew (800 kB over 100,000 chunks, at each question): for a caller that is
 * done with them before it asks again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Scratch } from "./positions.ts";
 * const scratch = new Scratch();
 * scratch.zeroed(3)[1] = 5;
 * assert.deepEqual(scratch.zeroed(2), Float64Array.of(0, 0));
 * ```
 */
export class Scratch {
  #memory = new Float64Array(0);

  /** `size` zeros. */
  zeroed(size: number): Float64Array {
    if (this.#memory.length < size) this.#memory = new Float64Array(size);
    else this.#memory.fill(0, 0, size);
    return this.#memory.subarray(0, size);
  }
}

/**
 * Where each of several lists starts when they are laid end to end, and,
 * last, where the final one ends.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startsOf } from "./positions.ts";
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
 * import { indexAt } from "./positions.ts";
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
