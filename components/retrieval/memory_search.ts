/**
 * The two arms over indexes kept in memory (`index_search.ts` keeps them):
 * each index as BM25 postings (`lexical/term_postings.ts`) and 8-bit vector
 * codes (`vectors/vector_codes.ts`); the full-text arm ranked over the chat's
 * chunks alone, the vector arm's best candidates found by their codes, then
 * ranked again exactly by their stored vectors ({@linkcode nearestExactly}).
 * @module
 */
import type { SearchQuery } from "../indexing/mod.ts";
import type { Sized } from "./search_cache.ts";
import { type Bm25Flavour, rankPostings, TermPostings } from "./lexical/term_postings.ts";
import { nearestChatCodes } from "./vectors/chat_codes.ts";
import { VectorCodes } from "./vectors/vector_codes.ts";

// The vector arm ranks twice as many candidates of the codes as it gives
// exactly, so that it gives the exact scan's ranking but for a chunk or two
// at its far end; a chat of this many chunks or more, as many as it gives:
// over 100,000 chunks the codes' best 100 held 99.8% of the exact scan's top
// 10, as their best 200 did, and a question took 6.6 ms rather than 7.9 (p50).
const FEWER_CANDIDATES_FROM = 10_000;

/** One index as search keeps it in memory. */
export interface MemoryIndex extends Sized {
  terms: TermPostings;
  codes: VectorCodes;
}

/** What goes into a {@linkcode MemoryIndex}. */
export interface MemoryIndexOptions {
  /** The texts of the chunks. */
  texts: readonly string[];
  /** Their vectors, none when the index has no vectors of the query's dimension. */
  vectors: readonly Float32Array[];
  dimension: number;
  /** How the full-text arm reads and ranks. */
  flavour: Bm25Flavour;
  /**
   * The bytes of what the caller keeps with it.
   * @default {0}
   */
  bytes?: number;
  /** The texts' postings in `flavour`, built before: they are not built again. */
  terms?: TermPostings;
}

/** What search keeps of an index. */
export async function memoryIndex(options: MemoryIndexOptions): Promise<MemoryIndex> {
  const { texts, vectors, dimension, flavour, bytes = 0 } = options;
  const terms = options.terms ?? await TermPostings.build(texts, flavour);
  const codes = VectorCodes.build(vectors, dimension);
  return {
    terms,
    codes,
    bytes: bytes + terms.bytes + codes.bytes,
    dropped: () => codes.release(),
  };
}

/** A chunk of the indexes searched: the index's place in their list, and the chunk's in it. */
export interface Place {
  index: number;
  chunk: number;
}

/**
 * The full-text arm's ranking of the indexes' chunks (best `query.limit`),
 * and the candidates of the vector arm by their codes (twice as many in a
 * chat of fewer than 10,000 chunks, else as many), to be ranked by
 * {@linkcode nearestExactly}.
 */
export async function searchMemory(
  indexes: readonly MemoryIndex[],
  query: SearchQuery,
): Promise<{ text: Place[]; candidates: Place[] }> {
  const size = indexes.reduce((sum, index) => sum + index.codes.size, 0);
  const count = size < FEWER_CANDIDATES_FROM ? 2 * query.limit : query.limit;
  // The vector arm first: a large chat's codes are scanned on their thread
  // while this one ranks the full-text arm (a failure of either awaited with the other).
  const [candidates, text] = await Promise.all([
    nearestChatCodes(indexes.map((index) => index.codes), query.vector, count),
    Promise.try(() => rankPostings(indexes.map((index) => index.terms), query.text, query.limit)),
  ]);
  return { text: text.map(({ index, chunk }) => ({ index, chunk })), candidates };
}

/**
 * The `limit` candidates nearest `query` by the cosine distance of their
 * stored vectors, as `vector_distance_cos` gives it: nearest first, ties in
 * the order of `tie`. A candidate without a vector is left out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nearestExactly } from "./memory_search.ts";
 * const vectors = new Map([[1, Float32Array.of(1, 0)], [2, Float32Array.of(0.6, 0.8)]]);
 * const nearest = nearestExactly([1, 2, 3], (id) => vectors.get(id), Float32Array.of(0, 1), {
 *   limit: 5,
 *   tie: (a, b) => a - b,
 * });
 * assert.deepEqual(nearest, [2, 1]);
 * ```
 */
export function nearestExactly<T>(
  candidates: readonly T[],
  vectorOf: (candidate: T) => Float32Array | undefined,
  query: Float32Array,
  options: { limit: number; tie: (a: T, b: T) => number },
): T[] {
  const length = Math.sqrt(query.reduce((sum, value) => sum + value * value, 0));
  const distances = new Map<T, number>();
  for (const candidate of candidates) {
    const vector = vectorOf(candidate);
    if (vector) distances.set(candidate, cosineDistance(query, length, vector));
  }
  // Sorted with their distances at hand rather than looked up at each comparison.
  return [...distances]
    .sort(([a, near], [b, far]) => near - far || options.tie(a, b))
    .slice(0, options.limit)
    .map(([candidate]) => candidate);
}

/** The cosine distance of a query of length `length` to a vector. */
function cosineDistance(query: Float32Array, length: number, vector: Float32Array): number {
  let dot = 0;
  let norm = 0;
  for (let i = 0; i < vector.length; i++) {
    dot += query[i]! * vector[i]!;
    norm += vector[i]! * vector[i]!;
  }
  return length === 0 || norm === 0 ? 1 : 1 - dot / (length * Math.sqrt(norm));
}
