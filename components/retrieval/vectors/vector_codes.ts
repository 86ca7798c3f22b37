/**
 * A chat's vectors in memory as 8-bit codes, for a fast approximate scan whose
 * best candidates the storage then ranks exactly by their stored vectors
 * (`retrieval/memory_search.ts`). One document's vectors are one block, laid out dimension by
 * dimension, so that the scan reads each dimension of the query's as one run
 * of bytes.
 *
 * The scan first scores every chunk on the query's heaviest dimensions (those
 * holding most of its length: with the hash embedder, its words and word
 * pairs), keeps the best thousand or so, and adds the other dimensions for
 * those only; a chat of up to a thousand chunks is scored on every dimension.
 * On 20,000 chunks of the hash embedder, the best 200 so found (with a first
 * pass of 48 dimensions), ranked exactly, held all of the exact scan's top 10
 * and 99% of its top 100; `bench/retrieval_bench.ts` measures the recall at
 * 100,000.
 *
 * The codes are kept in the memory of a WebAssembly scan (`code_arena.ts`),
 * which sums the query's weights, made integers of 16 bits, times the codes
 * of 16 vectors at a time. A large chat's codes are laid end to end
 * ({@linkcode VectorCodes.lay}) and scanned on a thread of their own
 * (`chat_codes.ts`).
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
} from "./code_arena.ts";
import { bestPositions, indexAt, Scratch, startsOf, topPositions } from "../positions.ts";

// The share of the query's squared length its first pass covers, and the
// fewest dimensions it takes (all of them when the query has fewer). Over
// 100,000 chunks of the hash embedder (questions of some 90 dimensions), 32
// rather than 48 took the first pass from 1.3 to 0.9 ms, and the best 200
// codes found still held 99.8% of the exact scan's top 10.
const HEAD_SHARE = 0.6;
const HEAD_MIN = 32;
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
   * import { nearestCodes, VectorCodes } from "./vector_codes.ts";
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

  /**
   * The codes of `parts`, all of one dimension, laid end to end as one
   * index's, in memory of their own: {@linkcode VectorCodes.fromLaid} makes
   * them codes again, in the scan's memory of another thread.
   */
  static lay(parts: readonly VectorCodes[]): LaidCodes {
    const dimension = parts[0]?.dimension ?? 0;
    const size = parts.reduce((sum, part) => sum + part.size, 0);
    const stride = Math.ceil(size / LANES) * LANES;
    // Every block taken before the view of the memory is made.
    const froms = parts.map((part) => part.load().offset);
    const from = scanBytes();
    const codes = new Int8Array(dimension * stride);
    for (let d = 0; d < dimension; d++) {
      let at = d * stride;
      parts.forEach((part, i) => {
        const start = froms[i]! + d * part.#stride;
        codes.set(from.subarray(start, start + part.size), at);
        at += part.size;
      });
    }
    const factors = new Float32Array(size);
    let at = 0;
    for (const part of parts) {
      factors.set(part.#factors, at);
      at += part.size;
    }
    return { dimension, size, codes, factors };
  }

  /** The codes that {@linkcode VectorCodes.lay} laid out, in the scan's memory. */
  static fromLaid({ dimension, size, codes, factors }: LaidCodes): VectorCodes {
    const stride = Math.ceil(size / LANES) * LANES;
    if (factors.length !== size || codes.length !== dimension * stride) {
      throw new RangeError(
        `Laid codes of ${size} vectors of ${dimension} dimensions need ${dimension * stride} ` +
          `codes and ${size} factors, not ${codes.length} and ${factors.length}`,
      );
    }
    const made = new VectorCodes(dimension, stride, factors);
    scanBytes().set(codes, made.load().offset);
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
   * The dot products, unscaled, of vector `chunks[c]` of `held[c]` with
   * `query` over the dimensions `dims`, each summed in the order of `dims`.
   * Summed dimension by dimension across the vectors: each dimension's codes
   * are a row of memory, read in order, where vector by vector each code
   * read lies in another row (1,000 vectors of 100,000 over 50 dimensions
   * took 1.1 ms so). The codes are {@linkcode VectorCodes.load}ed first.
   */
  static partialDots(
    held: readonly VectorCodes[],
    chunks: Int32Array,
    query: Float32Array,
    dims: readonly number[],
  ): Float64Array {
    const bases = Int32Array.from(chunks, (chunk, c) => held[c]!.load().offset + chunk);
    const strides = Int32Array.from(held, (codes) => codes.#stride);
    const codes = scanBytes();
    const sums = new Float64Array(chunks.length);
    for (const d of dims) {
      const weight = query[d]!;
      for (let c = 0; c < sums.length; c++) {
        sums[c]! += weight * codes[bases[c]! + d * strides[c]!]!;
      }
    }
    return sums;
  }

  /** What turns vector `i`'s unscaled dot product into its cosine (times the query's length). */
  factor(i: number): number {
    return this.#factors[i]!;
  }
}

/**
 * Codes laid end to end in memory of their own, as {@linkcode VectorCodes.lay}
 * makes them: the code of dimension d of vector i at d * stride + i, stride
 * being `size` rounded up to a multiple of 16 (the padding zero).
 */
export interface LaidCodes {
  dimension: number;
  size: number;
  codes: Int8Array<ArrayBuffer>;
  factors: Float32Array<ArrayBuffer>;
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
  // Added two dimensions at a time: an odd one out is paired with a weight of 0.
  const paired = count + (count % 2);
  const scratch = scratchBlock(4 * (paired + paired / 2 + stride));
  const largest = dims.reduce((most, d) => Math.max(most, Math.abs(query[d]!)), 0);
  const scale = Math.min(MAX_WEIGHT, Math.floor(MAX_SUM / (127 * Math.max(count, 1)))) /
    (largest || 1);
  const integers = scanIntegers();
  const at = scratch.offset / 4;
  for (let j = 0; j < paired; j += 2) {
    const [first, second] = [dims[j]!, dims[j + 1] ?? dims[j]!];
    integers[at + j] = first;
    integers[at + j + 1] = second;
    const low = Math.round(query[first]! * scale);
    const high = j + 1 < count ? Math.round(query[second]! * scale) : 0;
    integers[at + paired + j / 2] = (low & 0xffff) | (high << 16);
  }
  return {
    dims: scratch.offset,
    weights: scratch.offset + 4 * paired,
    count: paired,
    scale,
    out: scratch.offset + 6 * paired,
    integers,
    [Symbol.dispose]: scratch[Symbol.dispose],
  };
}

/** A candidate of {@linkcode nearestCodes}: its index in the list given, and its chunk. */
export interface CodeHit {
  index: number;
  chunk: number;
}

// A scan's scores: it runs from start to end without a pause, and keeps none.
const scanScores = new Scratch();

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

  // Before any view of the memory is made: loading codes back may grow it.
  for (const index of indexes) index.load();
  const stride = indexes.reduce(
    (most, index) => Math.max(most, Math.ceil(index.size / LANES) * LANES),
    0,
  );
  const scores = scanScores.zeroed(size);
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
  const candidates = bestPositions(scores, completed, -Infinity);
  const hits = Array.from(candidates, hitOf);
  const held = hits.map(({ index }) => indexes[index]!);
  const chunks = Int32Array.from(hits, ({ chunk }) => chunk);
  const partial = VectorCodes.partialDots(held, chunks, query, tail);
  const full = Float64Array.from(
    candidates,
    (position, c) => scores[position]! + partial[c]! * held[c]!.factor(chunks[c]!),
  );
  // Ties to the earlier candidate, the earlier vector, as for the first pass.
  return topPositions(full, count, -Infinity).map((i) => hitOf(candidates[i]!));
}
