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
 *
 * The codes are kept in the memory of a WebAssembly scan (`_code_arena.ts`),
 * which sums the query's weights, made integers of 16 bits, times the codes
 * of 16 vectors at a time. A large chat's codes are scanned laid end to end
 * (a copy of its indexes', kept for the chats searched last), so that each
 * dimension is one run of bytes that the processor reads ahead of the scan,
 * rather than one short run an index.
 * @module
 */
import {
  type Block,
  dots,
  giveBlock,
  holdBlock,
  scanBytes,
  scanIntegers,
  scratchBlock,
} from "./_code_arena.ts";
import { ChatViews } from "./_chat_views.ts";
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
// The scan adds 16 vectors at a time: each dimension's codes are padded to a multiple of 16.
const LANES = 16;
// The largest integer weight: within 16 bits, and small enough that a sum of
// as many codes as a vector has dimensions stays within 32 bits.
const MAX_WEIGHT = 32767;
const MAX_SUM = 2 ** 31 - 1;
// A chat of this many chunks or more, in several indexes, is scanned with
// its codes laid end to end: over 100,000 chunks in 1,000 indexes, the scan
// took 4.5 ms rather than 8.0 (a smaller chat's codes mostly fit the caches).
const LAID_END_TO_END = 10_000;
// The most bytes of codes kept so laid: one chat of some 120,000 chunks of
// 512 dimensions, or several smaller ones.
const LAID_BYTES = 64 * 2 ** 20;

/** The vectors of one document's chunks as 8-bit codes. */
export class VectorCodes {
  /** The number of vectors. */
  readonly size: number;
  readonly dimension: number;
  /** The bytes the codes take in memory. */
  readonly bytes: number;
  // In the scan's memory from block.offset: the code of dimension d of vector
  // i, times factors[i]'s inverse, at d * stride + i. Once released, the
  // same codes in `#copy` instead, until a scan needs them again.
  #block: Block | undefined;
  #copy: Int8Array | undefined;
  readonly #stride: number;
  // Turns a code's dot product into the cosine's (the query's length left out).
  readonly #factors: Float32Array;

  private constructor(dimension: number, stride: number, factors: Float32Array) {
    this.size = factors.length;
    this.dimension = dimension;
    this.#stride = stride;
    this.#block = holdBlock(this, dimension * stride);
    this.#factors = factors;
    this.bytes = this.#block.bytes + factors.byteLength;
  }

  /**
   * Gives the codes' block of the scan's memory back, for a cache that no
   * longer keeps them; a search that still holds them copies them back.
   */
  release(): void {
    if (!this.#block) return;
    const { offset } = this.#block;
    this.#copy = scanBytes().slice(offset, offset + this.dimension * this.#stride);
    giveBlock(this, this.#block);
    this.#block = undefined;
  }

  /** Gives the codes' block back for good, for codes that no search holds. */
  discard(): void {
    if (this.#block) giveBlock(this, this.#block);
    this.#block = undefined;
    this.#copy = undefined;
  }

  /** Where the codes are in the scan's memory, copied back there if they were released. */
  load(): Block {
    if (!this.#block) {
      if (!this.#copy) {
        throw new Error(
          "VectorCodes.load(): these codes were discarded, and no search may use them",
        );
      }
      this.#block = holdBlock(this, this.dimension * this.#stride);
      scanBytes().set(this.#copy, this.#block.offset);
      this.#copy = undefined;
    }
    return this.#block;
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
    const stride = Math.ceil(size / LANES) * LANES;
    const made = new VectorCodes(dimension, stride, new Float32Array(size));
    // Made after the block was taken (taking one may grow the memory).
    const { offset } = made.load();
    const codes = scanBytes().subarray(offset, offset + dimension * stride);
    // A block given back before holds its old codes: every byte is written.
    codes.fill(0);
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
        codes[d * stride + i] = Math.round((vector[d] ?? 0) * scale);
      }
      made.#factors[i] = 1 / (scale * Math.sqrt(norm));
    });
    return made;
  }

  /** The codes of `parts`, all of one dimension, laid end to end as one index's. */
  static endToEnd(parts: readonly VectorCodes[]): VectorCodes {
    const dimension = parts[0]?.dimension ?? 0;
    const size = parts.reduce((sum, part) => sum + part.size, 0);
    const stride = Math.ceil(size / LANES) * LANES;
    const factors = new Float32Array(size);
    const made = new VectorCodes(dimension, stride, factors);
    // Every block taken before the view of the memory is made.
    const froms = parts.map((part) => part.load().offset);
    const to = made.load().offset;
    const codes = scanBytes();
    for (let d = 0; d < dimension; d++) {
      let at = to + d * stride;
      parts.forEach((part, i) => {
        const from = froms[i]! + d * part.#stride;
        codes.copyWithin(at, from, from + part.size);
        at += part.size;
      });
      codes.fill(0, at, to + (d + 1) * stride);
    }
    let at = 0;
    for (const part of parts) {
      factors.set(part.#factors, at);
      at += part.size;
    }
    return made;
  }

  /**
   * Adds to `scores`, from `offset`, the dot product of every vector with the
   * weights of `query` over its dimensions, times the vector's
   * {@linkcode VectorCodes.factor}.
   */
  addScaledDots(scores: Float64Array, offset: number, query: ScanQuery): void {
    dots(this.load().offset, this.#stride, query.dims, query.weights, query.count, query.out);
    const sums = query.integers;
    const out = query.out / 4;
    const factors = this.#factors;
    for (let i = 0; i < factors.length; i++) {
      scores[offset + i]! += (sums[out + i]! / query.scale) * factors[i]!;
    }
  }

  /**
   * The dot product of vector `i` with `query` over the dimensions `dims`,
   * unscaled; `codes` is {@linkcode scanBytes}, made after
   * {@linkcode VectorCodes.load}.
   */
  partialDot(codes: Int8Array, i: number, query: Float32Array, dims: readonly number[]): number {
    const start = this.#block!.offset + i;
    const stride = this.#stride;
    let sum = 0;
    for (let j = 0; j < dims.length; j++) {
      const d = dims[j]!;
      sum += query[d]! * codes[start + d * stride]!;
    }
    return sum;
  }

  /** What turns vector `i`'s unscaled dot product into its cosine (times the query's length). */
  factor(i: number): number {
    return this.#factors[i]!;
  }
}

/** A query's dimensions and integer weights in the scan's memory, and room for the sums. */
interface ScanQuery {
  dims: number;
  weights: number;
  count: number;
  /** What the weights were multiplied by. */
  scale: number;
  out: number;
  /** The scan's memory as 32-bit integers, made once the scan's blocks are taken. */
  integers: Int32Array;
}

/**
 * The weights of `query` over `dims` as the scan takes them, for codes of at
 * most `stride` vectors, in a scratch block given back by `using`.
 */
function scanQuery(
  query: Float32Array,
  dims: readonly number[],
  stride: number,
): ScanQuery & Disposable {
  const count = dims.length;
  const scratch = scratchBlock(4 * (2 * count + stride));
  const largest = dims.reduce((most, d) => Math.max(most, Math.abs(query[d]!)), 0);
  const scale = Math.min(MAX_WEIGHT, Math.floor(MAX_SUM / (127 * Math.max(count, 1)))) /
    (largest || 1);
  const integers = scanIntegers();
  const at = scratch.offset / 4;
  dims.forEach((d, j) => {
    integers[at + j] = d;
    integers[at + count + j] = Math.round(query[d]! * scale);
  });
  return {
    dims: scratch.offset,
    weights: scratch.offset + 4 * count,
    count,
    scale,
    out: scratch.offset + 8 * count,
    integers,
    [Symbol.dispose]: scratch[Symbol.dispose],
  };
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
  const size = indexes.reduce((sum, index) => sum + index.size, 0);
  const bytes = size * query.length;
  if (indexes.length < 2 || size < LAID_END_TO_END || bytes > LAID_BYTES) {
    return nearestApart(indexes, query, count);
  }
  const laid = laidEndToEnd.find(indexes) ??
    laidEndToEnd.add(indexes, bytes, VectorCodes.endToEnd);
  const starts = startsOf(indexes);
  return nearestApart([laid], query, count).map(({ chunk: position }) => {
    const index = indexAt(starts, position);
    return { index, chunk: position - starts[index]! };
  });
}

// No search holds codes it drops: a scan runs from start to end without a pause.
const laidEndToEnd = new ChatViews<VectorCodes, VectorCodes>(
  LAID_BYTES,
  (codes) => codes.discard(),
);

/** {@linkcode nearestCodes}, each index's codes scanned where they are. */
function nearestApart(
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

  // Before any view of the memory is made: loading codes back may grow it.
  for (const index of indexes) index.load();
  const stride = indexes.reduce(
    (most, index) => Math.max(most, Math.ceil(index.size / LANES) * LANES),
    0,
  );
  const scores = new Float64Array(size);
  const hitOf = (position: number): CodeHit => {
    const index = indexAt(starts, position);
    return { index, chunk: position - starts[index]! };
  };
  {
    using scan = scanQuery(query, head, stride);
    indexes.forEach((index, i) => index.addScaledDots(scores, starts[i]!, scan));
  }
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
    using scan = scanQuery(query, tail, stride);
    indexes.forEach((index, i) => index.addScaledDots(scores, starts[i]!, scan));
    return topPositions(scores, count, -Infinity).map(hitOf);
  }
  // In the order of their vectors, so that each document's codes are read together.
  const candidates = topPositions(scores, completed, -Infinity).sort((a, b) => a - b);
  const codes = scanBytes();
  const full = candidates.map((position) => {
    const { index, chunk } = hitOf(position);
    const held = indexes[index]!;
    const score = scores[position]! +
      held.partialDot(codes, chunk, query, tail) * held.factor(chunk);
    return { position, score };
  });
  // Ties to the earlier vector, as topPositions() breaks them.
  return full.sort((a, b) => b.score - a.score || a.position - b.position).slice(0, count)
    .map(({ position }) => hitOf(position));
}
