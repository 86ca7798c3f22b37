/**
 * Retrieval: how svc ranks a chat's passages for a question and chooses an
 * answer's sources. It knows no database: a source storage hands it what it
 * stored and asks for ranked passages, through this door.
 *
 * ```text
 *  question
 *     |  follow_up.ts: a follow-up is searched as the assistant words it alone
 *     |               (a model, one short call), else with the questions it follows
 *     v
 *  +-- the arms, over the chat's indexes only ------------------------------+
 *  | index_search.ts (LibSQL, LanceDB, Postgres: ranked in memory)          |
 *  |   full text  lexical/: term_postings.ts (postings, BM25 as FTS5 or     |
 *  |              svc's own), porter.ts (stems), chat_terms.ts (a large     |
 *  |              chat's terms merged)                                      |
 *  |   vectors    vectors/: vector_codes.ts (8-bit codes), code_arena.ts    |
 *  |              and code_scan.wat (the scan in WebAssembly),              |
 *  |              code_scan_thread.ts + chat_codes.ts (a large chat's       |
 *  |              codes on their own thread); memory_search.ts ranks the    |
 *  |              best candidates exactly by their vectors                  |
 *  |   memory     search_cache.ts, kept_passages.ts, chat_views.ts          |
 *  | remote_search.ts (Chroma: lexical/bm25.ts; the store ranks vectors)    |
 *  +------------------------------------------------------------------------+
 *     |  full-text ranking, vector ranking
 *     v
 *  fusion.ts (reciprocal rank) --> the best candidates, ranked twice more:
 *     |        proximity.ts   how close together the question's words stand
 *     |        page_search.ts how well their pages match the question
 *     v
 *  fusion.ts of all four --> budget.ts (num_tokens), near_duplicates.ts
 *     --> neighbours.ts (a page's neighbouring passages joined) --> sources
 * ```
 *
 * `retriever.ts` runs the pipeline ({@linkcode Retriever}: `rank()` then
 * `choose()`); `positions.ts` (the best k of many scores) and
 * `recent_lists.ts` (a chat's lists of keys known again) serve several steps.
 *
 * A storage whose store holds its chunks makes an {@linkcode IndexSearch}
 * with its {@linkcode IndexReads} (how it reads an index's chunks, the
 * passages search does not keep, and where postings built at a first search
 * are kept), hands it each index it stores ({@linkcode IndexSearch.prepare}),
 * and answers `search()` with its ranking, the ids of its indexes by key
 * kept in {@linkcode KnownIndexes} while the store is unchanged; a store that
 * finds its nearest vectors itself hands {@linkcode RemoteSearch} its
 * {@linkcode RemoteReads}.
 * Each such storage extends {@linkcode IndexedSourceStorage}
 * (`indexed_storage.ts`) with its `IndexBackend`: it stores a chat's
 * documents through indexing, and asks a {@linkcode Retriever} for the
 * rankings of a question and for an answer's sources.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalDocument } from "../core/document.ts";
 * import { HashEmbedder } from "../embeddings/hash.ts";
 * import { IndexSearch, type ReadIndex, Retriever } from "./mod.ts";
 * const texts = ["The winter loaf holds cardamom.", "The bakery closes on Mondays."];
 * const embedder = new HashEmbedder();
 * const vectors = embedder.embedSync(texts);
 * const passages = texts.map((text, ordinal) =>
 *   ({ ordinal, text, pages: `[${ordinal + 1}]`, numTokens: 8, vector: vectors[ordinal] })
 * );
 * const search = new IndexSearch<string>({
 *   fullText: "svc",
 *   reads: {
 *     async *indexes(ids): AsyncGenerator<ReadIndex<string, undefined>> {
 *       for (const id of ids) yield { id, passages, extra: undefined };
 *     },
 *     passages: (chunks) => Promise.resolve(chunks.map((chunk) => passages[chunk.ordinal])),
 *     keepPostings: () => Promise.resolve(),
 *   },
 * });
 * const store = {
 *   search: (keys: readonly string[], query: Parameters<typeof search.search>[1]) =>
 *     search.search(keys, query, { find: async () => [{ id: "k", key: "k", cacheKey: "k" }] }),
 *   chunks: async () => passages.map((passage) => ({ key: "k", ...passage, pageNumbers: [] })),
 * };
 * const retriever = new Retriever();
 * const rankings = await retriever.rank(store, embedder, {
 *   documents: new Map([["k", LocalDocument.fromPath("bakery.md")]]),
 *   prompt: "Which spice is in the winter loaf?",
 *   numTokens: 8,
 *   chunkSize: 100,
 * });
 * const [source] = await retriever.choose(rankings);
 * assert.equal(source!.content, "The winter loaf holds cardamom.");
 * ```
 * @module
 */
export { IndexedSourceStorage } from "./indexed_storage.ts";
export type { IndexedSourceStorageOptions } from "./indexed_storage.ts";
export { IndexSearch } from "./index_search.ts";
export type {
  ChunkAt,
  FoundIndex,
  IndexExtra,
  IndexReads,
  IndexSearchOptions,
  PreparedIndex,
  ReadIndex,
  SearchOptions,
  StoredPassage,
} from "./index_search.ts";
export { storedPassage } from "./kept_passages.ts";
export { KnownIndexes } from "./known_indexes.ts";
export type { KnownIndexesOptions } from "./known_indexes.ts";
export type { WordsKept } from "./proximity.ts";
export { RemoteSearch } from "./remote_search.ts";
export type { RemoteReads } from "./remote_search.ts";
export { Retriever } from "./retriever.ts";
export type { Question, RankedStore, Rankings } from "./retriever.ts";
export type { Passage } from "./neighbours.ts";
export { BUDGET_PARAMS, DEFAULT_NUM_TOKENS, numTokensParam } from "./budget.ts";
