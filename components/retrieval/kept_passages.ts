/**
 * The passages of an index as the in-memory searches keep them (texts, pages,
 * tokens and vectors, by their place in the index's chunks), so that a
 * question reads none of them from the database: reading the 200 or so
 * candidates of each question's two searches, and their vectors, was most of
 * the time of a small chat's question.
 * @module
 */
import type { StoredChunk } from "../indexing/mod.ts";
import type { SearchCache, Sized } from "./search_cache.ts";

/** The passages of one index kept in memory, by their place in the index's chunks. */
export interface KeptPassages extends Sized {
  ordinals: Uint32Array;
  numTokens: Uint32Array;
  texts: string[];
  /** Each passage's pages as stored: a JSON array. */
  pages: string[];
  /** The vectors end to end, `dimension` numbers each; none when the index has none. */
  vectors?: Float32Array;
  dimension: number;
}

/** A passage as stored, to keep in memory. */
export interface StoredPassage {
  ordinal: number;
  text: string;
  /** Its pages as a JSON array. */
  pages: string;
  numTokens: number;
  vector?: Float32Array;
}

/**
 * A row of a store's chunks (`ordinal`, `text`, `page_numbers` as a JSON
 * array, `num_tokens`) as a passage to keep.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { storedPassage } from "./kept_passages.ts";
 * const row = { ordinal: 3, text: "Rye", page_numbers: "[2]", num_tokens: 1 };
 * assert.deepEqual(storedPassage(row, undefined), {
 *   ordinal: 3,
 *   text: "Rye",
 *   pages: "[2]",
 *   numTokens: 1,
 *   vector: undefined,
 * });
 * ```
 */
export function storedPassage(
  row: Readonly<Record<string, unknown>>,
  vector: Float32Array | undefined,
): StoredPassage {
  return {
    ordinal: Number(row.ordinal),
    text: String(row.text),
    pages: String(row.page_numbers),
    numTokens: Number(row.num_tokens),
    vector,
  };
}

/**
 * What a search keeps of an index's passages, each `dimension` numbers long.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keepPassages, passageAt, vectorAt } from "./kept_passages.ts";
 * const kept = keepPassages([
 *   { ordinal: 0, text: "Rye bread", pages: "[2]", numTokens: 3, vector: Float32Array.of(1, 0) },
 * ], 2);
 * assert.deepEqual(passageAt(kept, 0), { ordinal: 0, text: "Rye bread", pageNumbers: [2], numTokens: 3 });
 * assert.deepEqual(vectorAt(kept, 0), Float32Array.of(1, 0));
 * assert.equal(passageAt(kept, 1), undefined);
 * ```
 */
export function keepPassages(stored: readonly StoredPassage[], dimension: number): KeptPassages {
  const withVectors = stored.length > 0 && stored.every((passage) => passage.vector);
  const vectors = withVectors ? new Float32Array(stored.length * dimension) : undefined;
  let chars = 0;
  stored.forEach((passage, i) => {
    vectors?.set(passage.vector!, i * dimension);
    chars += passage.text.length + passage.pages.length;
  });
  const ordinals = Uint32Array.from(stored, (passage) => passage.ordinal);
  const numTokens = Uint32Array.from(stored, (passage) => passage.numTokens);
  return {
    ordinals,
    numTokens,
    texts: stored.map((passage) => passage.text),
    pages: stored.map((passage) => passage.pages),
    vectors,
    dimension,
    // A string of Latin-1 takes a byte a character, others two; each string some 32 bytes more.
    bytes: chars + 64 * stored.length + ordinals.byteLength + numTokens.byteLength +
      (vectors?.byteLength ?? 0),
  };
}

/** The passage at `chunk` of those kept, as a stored chunk without its key. */
export function passageAt(
  kept: KeptPassages,
  chunk: number,
): Omit<StoredChunk, "key"> | undefined {
  const text = kept.texts[chunk];
  if (text === undefined) return undefined;
  return {
    ordinal: kept.ordinals[chunk]!,
    text,
    pageNumbers: JSON.parse(kept.pages[chunk]!),
    numTokens: kept.numTokens[chunk]!,
  };
}

/** The vector of the passage at `chunk` of those kept. */
export function vectorAt(kept: KeptPassages, chunk: number): Float32Array | undefined {
  if (!kept.vectors || chunk >= kept.ordinals.length) return undefined;
  return kept.vectors.subarray(chunk * kept.dimension, (chunk + 1) * kept.dimension);
}

/** An index searched: what reads its passages, and where the cache keeps them. */
export interface PassagesOf<Id> {
  id: Id;
  cacheKey: string;
}

/**
 * The passages kept in `cache` of each index searched. When some are not,
 * and all of them (`bytes` together) fit in half the budget, those are read
 * again by `read` and kept: a large chat searched meanwhile may have pushed
 * a small one's out, and the small one then reads them once rather than at
 * each question. An index without passages is not kept.
 */
export async function keptOrRead<Id>(
  cache: SearchCache<KeptPassages>,
  indexes: readonly PassagesOf<Id>[],
  bytes: number,
  read: (missing: Id[]) => AsyncIterable<{ id: Id; passages: KeptPassages }>,
): Promise<(KeptPassages | undefined)[]> {
  const kept = indexes.map((index) => cache.get(index.cacheKey));
  if (kept.every((passages) => passages) || bytes > cache.budget / 2) return kept;
  const missing = [...new Set(indexes.flatMap((index, i) => kept[i] ? [] : [index.id]))];
  const found = new Map<Id, KeptPassages>();
  for await (const { id, passages } of read(missing)) found.set(id, passages);
  return indexes.map((index, i) => {
    const passages = kept[i] ?? found.get(index.id);
    if (!kept[i] && passages && passages.ordinals.length > 0) cache.set(index.cacheKey, passages);
    return passages;
  });
}
