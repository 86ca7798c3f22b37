/**
 * Retrieval: the engine that ranks a chat's passages.
 * @module
 */
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
export type { WordsKept } from "./proximity.ts";
export { RemoteSearch } from "./remote_search.ts";
export type { RemoteReads } from "./remote_search.ts";
export { Retriever } from "./retriever.ts";
export type { Question, RankedStore, Rankings } from "./retriever.ts";
export type { Passage } from "./neighbours.ts";
export { numTokensParam } from "./budget.ts";
