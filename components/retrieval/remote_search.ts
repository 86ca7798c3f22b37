/**
 * The full-text and vector arms for a store that ranks vectors itself but
 * has no ranked full-text search (Chroma): a store hands
 * {@linkcode RemoteSearch} how it reads an index's texts and chunks and how
 * it finds an index's nearest chunks, and asks it for the chat's chunks,
 * ranked.
 *
 * The full-text arm is svc's own BM25 (`lexical/bm25.ts`) over the chunks of
 * the chat's indexes, not a store's substring filter (Chroma's `$contains`
 * is an unranked, case-sensitive match, one request per word and index, with
 * no stems and no word weights: as a ranking it would add noise to the
 * fusion rather than the lexical evidence the other storages fuse). An index
 * never changes once complete, so its term statistics are built once (when
 * stored, or from its texts at its first search after a start) and kept in
 * memory within a bound (`lexical/bm25_cache.ts`). The vector arm merges the
 * nearest chunks the store finds in each index into one ranking.
 * @module
 */
import { forEachAtOnce } from "../core/at_once.ts";
import type { SearchQuery, StoredChunk } from "../indexing/mod.ts";
import { Bm25Index, bm25Search } from "./lexical/bm25.ts";
import { Bm25Cache } from "./lexical/bm25_cache.ts";

// Requests to the store at once during a search.
const CONCURRENCY = 8;

/** How a store reads its indexes for {@linkcode RemoteSearch}. */
export interface RemoteReads {
  /** The texts of an index's chunks, in the order of their ordinals. */
  texts(key: string): Promise<readonly string[]>;
  /** The chunks of an index at `ordinals`; those gone are left out. */
  chunks(key: string, ordinals: readonly number[]): Promise<StoredChunk[]>;
  /** The `limit` chunks of an index nearest `vector`, each with its distance, as the store finds them. */
  nearest(
    key: string,
    vector: Float32Array,
    limit: number,
  ): Promise<(StoredChunk & { distance: number })[]>;
}

/**
 * The arms over indexes whose store finds their nearest chunks: svc's BM25
 * over their texts, and the store's nearest chunks of each merged.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RemoteSearch } from "./remote_search.ts";
 * const texts = ["The secret is Svc!", "Rye bread"];
 * const chunk = (ordinal: number) =>
 *   ({ key: "k", ordinal, text: texts[ordinal]!, pageNumbers: [], numTokens: 4 });
 * const search = new RemoteSearch();
 * search.add("k", texts);
 * const [text, vector] = await search.search(["k"], {
 *   text: "What is the secret?",
 *   vector: Float32Array.of(1, 0),
 *   limit: 10,
 * }, {
 *   texts: () => Promise.resolve(texts),
 *   chunks: (_, ordinals) => Promise.resolve(ordinals.map(chunk)),
 *   nearest: () => Promise.resolve([{ ...chunk(1), distance: 0.2 }, { ...chunk(0), distance: 0.1 }]),
 * });
 * assert.deepEqual(text!.map((found) => found.ordinal), [0]);
 * assert.deepEqual(vector!.map((found) => found.ordinal), [0, 1]);
 * ```
 */
export class RemoteSearch {
  readonly #bm25 = new Bm25Cache();

  /** Keeps the term statistics of an index just stored, of its chunks' `texts` in order. */
  add(key: string, texts: readonly string[]): void {
    this.#bm25.set(key, Bm25Index.build(texts));
  }

  /** Forgets an index removed from its store. */
  delete(key: string): void {
    this.#bm25.delete(key);
  }

  /**
   * The chunks of the indexes of `keys` (those the store holds): the
   * full-text arm's best `query.limit`, then the vector arm's.
   */
  async search(
    keys: readonly string[],
    query: SearchQuery,
    reads: RemoteReads,
  ): Promise<StoredChunk[][]> {
    query.signal?.throwIfAborted();
    const indexes = new Map<string, Bm25Index>();
    await forEachAtOnce(keys, CONCURRENCY, async (key) => {
      indexes.set(key, await this.#bm25.get(key, () => reads.texts(key)));
    });
    const hits = bm25Search(keys.map((key) => indexes.get(key)!), query.text, query.limit);
    const wanted = new Map<string, number[]>();
    for (const hit of hits) {
      const key = keys[hit.index]!;
      wanted.set(key, [...wanted.get(key) ?? [], hit.text]);
    }
    const text = new Map<string, StoredChunk>();
    await forEachAtOnce([...wanted], CONCURRENCY, async ([key, ordinals]) => {
      for (const chunk of await reads.chunks(key, ordinals)) {
        text.set(`${key}-${chunk.ordinal}`, chunk);
      }
    });

    query.signal?.throwIfAborted();
    const vector: (StoredChunk & { distance: number })[] = [];
    await forEachAtOnce(keys, CONCURRENCY, async (key) => {
      vector.push(...await reads.nearest(key, query.vector, query.limit));
    });
    // Ties in the order of the chunks, so that a search gives the same on every run.
    vector.sort((a, b) =>
      a.distance - b.distance || a.key.localeCompare(b.key) || a.ordinal - b.ordinal
    );
    return [
      hits.map((hit) => text.get(`${keys[hit.index]}-${hit.text}`)).filter((chunk) => !!chunk),
      vector.slice(0, query.limit).map(({ distance: _, ...chunk }) => chunk),
    ];
  }
}
