/**
 * The contract between the chunking source storages and where they keep
 * their indexes: an {@linkcode IndexBackend} (LibSQL's, LanceDB's, Chroma's,
 * Postgres's),
 * the records it stores and finds, and the key that names an index by what
 * it was made from.
 * @module
 */
import type { Chunk } from "../chunking.ts";

/** What an index was made from; two documents with equal settings share one index. */
export interface IndexSettings {
  /**
   * The user whose chats, and only those, share the index; left out when the
   * chats of every user share it (`SVC_SHARE_INDEXES`).
   */
  owner?: string;
  /** The SHA-256 of the document's bytes, in hex. */
  contentHash: string;
  chunkSize: number;
  chunkOverlap: number;
  /** The embedder's id. */
  embedder: string;
  /** The embedder's dimension. */
  dimension: number;
}

/** An index as stored: its settings and `key`, a hex digest of them. */
export interface IndexInfo extends IndexSettings {
  key: string;
}

/**
 * An index as a store keeps it: its key and settings, one field or column
 * each (a type, not an interface, so that it is a record of values a store takes).
 */
export type IndexRecord = {
  key: string;
  content_hash: string;
  chunk_size: number;
  chunk_overlap: number;
  embedder: string;
  dimension: number;
};

/**
 * The record a store keeps of an index (its owner is in its key alone).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { indexInfoOf, indexRecord } from "./backend.ts";
 * const info = {
 *   key: "k",
 *   contentHash: "c",
 *   chunkSize: 500,
 *   chunkOverlap: 250,
 *   embedder: "svc/hash-v1-512",
 *   dimension: 512,
 * };
 * assert.equal(indexRecord(info).chunk_size, 500);
 * assert.deepEqual(indexInfoOf(indexRecord(info)), info);
 * ```
 */
export function indexRecord(info: IndexInfo): IndexRecord {
  return {
    key: info.key,
    content_hash: info.contentHash,
    chunk_size: info.chunkSize,
    chunk_overlap: info.chunkOverlap,
    embedder: info.embedder,
    dimension: info.dimension,
  };
}

/** An index's settings from the record a store gives back, whatever types it read them as. */
export function indexInfoOf(record: Readonly<Record<string, unknown>>): IndexInfo {
  return {
    key: String(record.key),
    contentHash: String(record.content_hash),
    chunkSize: Number(record.chunk_size),
    chunkOverlap: Number(record.chunk_overlap),
    embedder: String(record.embedder),
    dimension: Number(record.dimension),
  };
}

/** A complete index to store. */
export interface NewIndex extends IndexInfo {
  /** The chunks, in document order; a chunk's position is its `ordinal`. */
  chunks: readonly Chunk[];
  /** One vector per chunk. */
  vectors: readonly Float32Array[];
}

/** A document of a chat, and the index that holds it. */
export interface IndexLink {
  chatId: string;
  documentId: string;
  key: string;
}

/** What {@linkcode IndexBackend.search} looks for. */
export interface SearchQuery {
  /** The prompt, for a text arm (full-text search). */
  text: string;
  /** The prompt's vector, for a vector arm. */
  vector: Float32Array;
  /** The most chunks each ranking holds. */
  limit: number;
  signal?: AbortSignal;
}

/** A chunk as a backend finds it. */
export interface StoredChunk {
  /** The key of its index. */
  key: string;
  /** Its position in its document, from 0. */
  ordinal: number;
  text: string;
  pageNumbers: number[];
  numTokens: number;
}

/**
 * A chunk from the row a store reads of it (`ordinal`, `text`, `num_tokens`,
 * and `page_numbers` as a JSON array or an array), whatever types it read
 * them as.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { storedChunk } from "./backend.ts";
 * const row = { ordinal: 2n, text: "Rye", page_numbers: "[4]", num_tokens: 1 };
 * assert.deepEqual(storedChunk("k", row), {
 *   key: "k",
 *   ordinal: 2,
 *   text: "Rye",
 *   pageNumbers: [4],
 *   numTokens: 1,
 * });
 * ```
 */
export function storedChunk(key: string, row: Readonly<Record<string, unknown>>): StoredChunk {
  const pages = row.page_numbers;
  return {
    key,
    ordinal: Number(row.ordinal),
    text: String(row.text),
    pageNumbers: typeof pages === "string"
      ? JSON.parse(pages)
      : Array.from(pages as Iterable<unknown>, Number),
    numTokens: Number(row.num_tokens),
  };
}

/**
 * A vector dimension that a store may name a table by: a positive integer.
 *
 * @throws {RangeError} for any other number
 */
export function checkedDimension(dimension: number): number {
  if (Number.isInteger(dimension) && dimension >= 1) return dimension;
  throw new RangeError(`A vector dimension must be a positive integer, not ${dimension}`);
}

/**
 * Where a storage keeps its indexes. An index is immutable once stored, and
 * is removed when no chat links to it any more.
 */
export interface IndexBackend {
  /**
   * Links a chat's document to the stored index under `link.key`, replacing
   * the document's earlier link (and removing the index it pointed to when no
   * chat links to that any more). Changes nothing and gives false when no
   * index is stored under the key.
   */
  link(link: IndexLink): Promise<boolean>;
  /**
   * Stores a complete index and links it as {@linkcode IndexBackend.link}
   * does, in one step, so that no other chat's deletion removes it in between.
   * When the same key was stored meanwhile (by another process), one of the
   * two is kept.
   */
  add(index: NewIndex, link: IndexLink): Promise<void>;
  /** The indexes a chat links to, by document id. */
  links(chatId: string): Promise<Map<string, IndexInfo>>;
  /** Removes a chat's links, and every index that no chat links to any more. */
  unlink(chatId: string): Promise<void>;
  /**
   * Removes the link of one of a chat's documents, and its index when no chat
   * links to it any more; a backend without it keeps the link until the chat goes.
   */
  unlinkDocument?(chatId: string, documentId: string): Promise<void>;
  /**
   * Ranks the chunks of the indexes under `keys`, and only those, as
   * retrieval's `IndexSearch` or `RemoteSearch` does with what the store
   * reads: one ranking per arm, best first, full-text then vector.
   */
  search(keys: readonly string[], query: SearchQuery): Promise<StoredChunk[][]>;
  /**
   * Every chunk of the complete index under `key`, in document order; none
   * when no index is stored under it. Retrieval reads a document's pages
   * from them (`retrieval/page_search.ts`).
   */
  chunks(key: string): Promise<StoredChunk[]>;
}

/** An index's settings with its key: the SHA-256 of the settings, in hex. */
export async function indexInfo(settings: IndexSettings): Promise<IndexInfo> {
  // The "v3" names the chunking; change it when chunks of the same settings change
  // (v2: passages across slides; v1: token windows).
  // A shared index has the key it had before indexes had owners.
  const text = JSON.stringify([
    "svc-index-v3",
    settings.contentHash,
    settings.chunkSize,
    settings.chunkOverlap,
    settings.embedder,
    settings.dimension,
    ...(settings.owner === undefined ? [] : [{ owner: settings.owner }]),
  ]);
  return { ...settings, key: await contentHash(new TextEncoder().encode(text)) };
}

/**
 * The SHA-256 of bytes, in hex: what identifies a document's content.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentHash } from "./backend.ts";
 * const hash = await contentHash(new TextEncoder().encode("abc"));
 * assert.equal(hash.slice(0, 16), "ba7816bf8f01cfea");
 * ```
 */
export async function contentHash(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
