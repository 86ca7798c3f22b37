/**
 * A chat's vectors in memory as 8-bit codes, for a fast approximate scan whose
 * best candidates the storage then ranks exactly by their stored vectors
 * (`_memory_search.ts`). One document's vectors are one block, laid out dimension by
 * dimension, so that the scan reads each dimension of the query's as one run
 * of bytes.
 *
 * The scan first scores every chunk on the query's heaviest dimensions (those
 * holding most of its length: with the hash embedder, its words and word
 * pairs), keeps the best thousand or so, and adds the other dimensions for
 * those only; a chat of up to a thousand chunks is scored on every dimension.
 * On 20,000 chunks of the hash embedder, the best 200 so found, ranked
 * exactly, held all of the exact scan's top 10 and 99% of its top 100;
 * `bench/retrieval_bench.ts` measures the recall at 100,000.
 * @module
 */
import { indexAt, startsOf, topPositions } from "./_positions.ts";

// The share of the query's squared length its first pass covers, and the
// fewest dimensions it takes (all of them when the query has fewer).
const HEAD_SHARE = 0.6;
const HEAD_MIN = 48;
// How many candidates of the first pass get the other dimensions too: all of
// a small chat, a few times those asked for, or a small part of a large chat.
const COMPLETED_MIN = 1000;
const COMPLETED_TIMES = 4;
const COMPLETED_SHARE = 0.01;

/** The vectors of one document's chunks as 8-bit codes. */
export class VectorCodes {
  /** The number of vectors. */
  readonly size: number;
  readonly dimension: number;
  /** The bytes the codes take in memory. */
  readonly bytes: number;
  // codes[d * size + i] is dimension d of vector i, times factors[i]'s inverse.
  readonly #codes: Int8Array;
  // Turns a code's dot product into the cosine's (the query's length left out).
  readonly #factors: Float32Array;

  private constructor(dimension: number, codes: Int8Array, factors: Float32Array) {
    this.size = factors.length;
    this.dimension = dimension;
    this.bytes = codes.byteLength + factors.byteLength;
    this.#codes = codes;
    this.#factors = factors;
  }

  /**
   * The codes of `vectors`, each `dimension` long.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { nearestCodes, VectorCodes } from "./_vector_codes.ts";
   * const codes = VectorCodes.build([Float32Array.of(1, 0), Float32Array.of(0.6, 0.8)], 2);
   * assert.deepEqual(nearestCodes([codes], Float32Array.of(0, 1), 2), [{ index: 0, chunk: 1 }, { index: 0, chunk: 0 }]);
   * ```
   */
  static build(vectors: readonly Float32Array[], dimension: number): VectorCodes {
    const size = vectors.length;
    const codes = new Int8Array(size * dimension);
    const factors = new Float32Array(size);
    vectors.forEach((vector, i) => {
      let largest = 0;
      let norm = 0;
      for (let d = 0; d < dimension; d++) {
        const value = vector[d] ?? 0;
        largest = Math.max(largest, Math.abs(value));
        norm += value * value;
      }
      if (largest === 0) return;
      const scale = 127 / largest;
      for (let d = 0; d < dimension; d++) {
        codes[d * size + i] = Math.round((vector[d] ?? 0) * scale);
      }
      factors[i] = 1 / (scale * Math.sqrt(norm));
    });
    return new VectorCodes(dimension, codes, factors);
  }

  /** Adds the dot product of every vector with `weights` over `dims` to `scores` from `offset`. */
  addDimensions(
    scores: Float64Array,
    offset: number,
    dims: Int32Array,
    weights: Float64Array,
  ): void {
    const codes = this.#codes;
    const size = this.size;
    let j = 0;
    // Four dimensions a pass, each score read and written once for them: the
    // same additions in the same order, so the same sums, in half the time.
    for (; j + 4 <= dims.length; j += 4) {
      const [a, b, c, d] = [
        dims[j]! * size,
        dims[j + 1]! * size,
        dims[j + 2]! * size,
        dims[j + 3]! * size,
      ];
      const [wa, wb, wc, wd] = [weights[j]!, weights[j + 1]!, weights[j + 2]!, weights[j + 3]!];
      for (let i = 0; i < size; i++) {
        scores[offset + i] = scores[offset + i]! + wa * codes[a + i]! + wb * codes[b + i]! +
          wc * codes[c + i]! + wd * codes[d + i]!;
      }
    }
    for (; j < dims.length; j++) {
      const start = dims[j]! * size;
      const weight = weights[j]!;
      for (let i = 0; i < size; i++) scores[offset + i]! += weight * codes[start + i]!;
    }
  }

  /** Multiplies the scores of every vector, from `offset`, by its {@linkcode VectorCodes.factor}. */
  scale(scores: Float64Array, offset: number): void {
    const factors = this.#factors;
    for (let i = 0; i < factors.length; i++) scores[offset + i]! *= factors[i]!;
  }

  /** The dot product of vector `i` with `query` over the dimensions `dims`, unscaled. */
  partialDot(i: number, query: Float32Array, dims: readonly number[]): number {
    const codes = this.#codes;
    const size = this.size;
    let sum = 0;
    for (let j = 0; j < dims.length; j++) {
      const d = dims[j]!;
      sum += query[d]! * codes[d * size + i]!;
    }
    return sum;
  }

  /** What turns vector `i`'s unscaled dot product into its cosine (times the query's length). */
  factor(i: number): number {
    return this.#factors[i]!;
  }
}

/** A candidate of {@linkcode nearestCodes}: its index in the list given, and its chunk. */
export interface CodeHit {
  index: number;
  chunk: number;
}

/**
 * The `count` vectors of the given codes nearest `query` by cosine, by their
 * codes: nearest first, ties to the earlier index and chunk. Approximate: the
 * caller ranks them again by the stored vectors.
 */
export function nearestCodes(
  indexes: readonly VectorCodes[],
  query: Float32Array,
  count: number,
): CodeHit[] {
  const starts = startsOf(indexes);
  const size = starts[indexes.length]!;
  if (size === 0 || count <= 0) return [];

  const dims = [...query.keys()].filter((d) => query[d] !== 0)
    .sort((a, b) => Math.abs(query[b]!) - Math.abs(query[a]!) || a - b);
  const total = dims.reduce((sum, d) => sum + query[d]! ** 2, 0);
  let headSize = Math.min(dims.length, HEAD_MIN);
  let covered = dims.slice(0, headSize).reduce((sum, d) => sum + query[d]! ** 2, 0);
  while (headSize < dims.length && covered < HEAD_SHARE * total) {
    covered += query[dims[headSize++]!]! ** 2;
  }
  const head = dims.slice(0, headSize);
  const tail = dims.slice(headSize);

  const scores = new Float64Array(size);
  const headDims = Int32Array.from(head);
  const headWeights = Float64Array.from(head, (d) => query[d]!);
  indexes.forEach((index, i) => index.addDimensions(scores, starts[i]!, headDims, headWeights));
  const hitOf = (position: number): CodeHit => {
    const index = indexAt(starts, position);
    return { index, chunk: position - starts[index]! };
  };
  indexes.forEach((index, i) => index.scale(scores, starts[i]!));
  if (tail.length === 0) return topPositions(scores, count, -Infinity).map(hitOf);

  // The first pass ranks by the head alone; the best of it get the tail too.
  const completed = Math.max(
    COMPLETED_MIN,
    COMPLETED_TIMES * count,
    Math.ceil(COMPLETED_SHARE * size),
  );
  if (completed >= size) {
    // Every vector gets the tail: summed dimension by dimension, as for the
    // head, rather than vector by vector across the codes.
    const tails = new Float64Array(size);
    const tailDims = Int32Array.from(tail);
    const tailWeights = Float64Array.from(tail, (d) => query[d]!);
    indexes.forEach((index, i) => index.addDimensions(tails, starts[i]!, tailDims, tailWeights));
    indexes.forEach((index, i) => {
      for (let chunk = 0; chunk < index.size; chunk++) {
        const position = starts[i]! + chunk;
        tails[position] = scores[position]! + tails[position]! * index.factor(chunk);
      }
    });
    return topPositions(tails, count, -Infinity).map(hitOf);
  }
  // In the order of their vectors, so that each document's codes are read together.
  const candidates = topPositions(scores, completed, -Infinity).sort((a, b) => a - b);
  const full = new Float64Array(size).fill(-Infinity);
  for (const position of candidates) {
    const { index, chunk } = hitOf(position);
    const codes = indexes[index]!;
    full[position] = scores[position]! + codes.partialDot(chunk, query, tail) * codes.factor(chunk);
  }
  return topPositions(full, count, -Infinity).map(hitOf);
}
