/**
 * Indexing, in one place: a document's content becomes chunks that remember
 * their pages, and one vector per chunk ({@linkcode chunkAndEmbed}, the
 * pipeline, whose heavy work runs off the main thread: parsing in a reader
 * thread, chunking and embedding in the indexing worker `_worker.ts`), and
 * the contract of where the chunking source storages keep such indexes
 * ({@linkcode IndexBackend}, each index named by {@linkcode indexInfo}, its
 * chunks read back by {@linkcode storedChunk}).
 * The {@linkcode Indexer} stores a chat's documents in a backend, each once
 * per owner (`share_indexes.ts`), content and settings (the chat parameters
 * {@linkcode CHUNK_PARAMS}), and links the chat to them; backends
 * share the plumbing beside it: {@linkcode SerialBackend} for a store without
 * transactions (its writes one at a time, its links, an index stored and
 * linked as one step), {@linkcode Openings} (one backend per location),
 * {@linkcode KeptLinks} (a chat's links kept while the store is unchanged),
 * `write_batches.ts` (an index's rows written some at a time, the indexes
 * added meanwhile written together), and `builds.ts` (whether a build that
 * wrote part of an index still runs).
 *
 * What runs off the main thread is chosen by what a document and an embedder
 * declare: a document class that reads its own pages
 * (`Document.readsOwnPages`) is read where it is, and an embedder is made
 * again in the worker when it gives a recipe (`Embedder.workerRecipe`).
 * @module
 */
export {
  checkedDimension,
  contentHash,
  indexInfo,
  indexInfoOf,
  indexRecord,
  storedChunk,
} from "./backend.ts";
export type {
  IndexBackend,
  IndexInfo,
  IndexLink,
  IndexRecord,
  IndexSettings,
  NewIndex,
  SearchQuery,
  StoredChunk,
} from "./backend.ts";
export { CHUNK_PARAM_RULES, CHUNK_PARAMS, DEFAULT_CHUNK_OVERLAP } from "./chunk_params.ts";
export { chunkLimits } from "./chunk_limits.ts";
export { Indexer } from "./indexer.ts";
export type { IndexOptions } from "./indexer.ts";
export { chunkAndEmbed, holdIndexingWorker } from "./pipeline.ts";
export type { ChunkAndEmbedOptions, EmbeddedChunks, IndexProgress } from "./pipeline.ts";
export { abandoned, newBuilder, runBuild, STALE_AFTER_MS } from "./builds.ts";
export type { StoredBuild } from "./builds.ts";
export { KeptLinks } from "./kept_links.ts";
export { Openings } from "./openings.ts";
export { linkName, SerialBackend } from "./serial_backend.ts";
export { SHARE_INDEXES_ENV, shareIndexesFromEnv } from "./share_indexes.ts";
export type { StoredLink } from "./serial_backend.ts";
export { batches, WriteBatches } from "./write_batches.ts";
