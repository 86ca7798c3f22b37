/**
 * The Postgres storage's tables (named `rag_*`, so that the database may
 * hold others, svc's own), created one process at a time, and how the backend
 * writes them in transactions: an index whole, a link, the removal of the
 * indexes no chat links to, each under a lock of its own.
 * @module
 */
import type * as Postgres from "npm:postgres@3.4.9";
import { batches, type IndexLink, type NewIndex } from "../indexing/mod.ts";
import type { PreparedIndex } from "../retrieval/mod.ts";
import { copyIn } from "../postgres_guard.ts";
import { copyRows, type VectorKind } from "./_postgres_vectors.ts";

type Sql = Postgres.Sql;
type Transaction = Postgres.TransactionSql;

const SCHEMA_VERSION = "1";
// Rows per statement: a few megabytes of JSON at most.
const CHUNK_ROWS = 500;

// Locks of transactions (pg_advisory_xact_lock), named by text.
export const SCHEMA_LOCK = "svc rag schema";
export const LINKS_LOCK = "svc rag links";
// The count of changes to the links and indexes (in rag_meta), moved on under LINKS_LOCK.
export const LINKS_GENERATION = "links generation";

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS rag_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS rag_indexes (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    content_hash TEXT NOT NULL,
    chunk_size INTEGER NOT NULL,
    chunk_overlap INTEGER NOT NULL,
    embedder TEXT NOT NULL,
    dimension INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL,
    term_count BIGINT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
  )`,
  `CREATE TABLE IF NOT EXISTS rag_chunks (
    index_id BIGINT NOT NULL REFERENCES rag_indexes (id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    text TEXT NOT NULL,
    page_numbers INTEGER[] NOT NULL,
    num_tokens INTEGER NOT NULL,
    num_terms INTEGER NOT NULL,
    PRIMARY KEY (index_id, ordinal)
  )`,
  // An index's postings for the full-text ranking: the bytes of TermPostings.toBytes().
  `CREATE TABLE IF NOT EXISTS rag_index_postings (
    index_id BIGINT PRIMARY KEY REFERENCES rag_indexes (id) ON DELETE CASCADE,
    data BYTEA NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS rag_links (
    chat_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    index_id BIGINT NOT NULL REFERENCES rag_indexes (id),
    PRIMARY KEY (chat_id, document_id)
  )`,
  `CREATE INDEX IF NOT EXISTS rag_links_by_index ON rag_links (index_id)`,
];

/**
 * Creates the tables the database lacks, one process at a time.
 *
 * @throws {Error} when the tables are of another version of svc
 */
export async function createTables(sql: Sql): Promise<void> {
  await sql.begin(async (tx) => {
    await lock(tx, SCHEMA_LOCK);
    for (const statement of SCHEMA) await tx.unsafe(statement);
    const [found] = await tx`SELECT value FROM rag_meta WHERE name = 'schema'`;
    if (found === undefined) {
      await tx`INSERT INTO rag_meta (name, value) VALUES ('schema', ${SCHEMA_VERSION})`;
    } else if (found.value !== SCHEMA_VERSION) {
      throw new Error(
        `its rag_* tables have schema version ${found.value}, and this svc knows ${SCHEMA_VERSION}`,
      );
    }
    await tx`INSERT INTO rag_meta (name, value) VALUES (${LINKS_GENERATION}, '0')
      ON CONFLICT (name) DO NOTHING`;
  });
}

/** Writes a new index: its row, chunks, postings and vectors; gives its id. */
export async function writeIndex(
  tx: Transaction,
  index: NewIndex,
  { texts, prepared }: { texts: readonly string[]; prepared: PreparedIndex },
  vectors: { table: string; kind: VectorKind },
): Promise<string> {
  const [created] = await tx`INSERT INTO rag_indexes (key, content_hash, chunk_size, chunk_overlap,
      embedder, dimension, chunk_count, term_count)
    VALUES (${index.key}, ${index.contentHash}, ${index.chunkSize}, ${index.chunkOverlap},
      ${index.embedder}, ${index.dimension}, ${index.chunks.length}, ${prepared.totalTerms})
    RETURNING id`;
  const id = String(created!.id);
  for await (const { start, items: chunks } of batches(index.chunks, CHUNK_ROWS)) {
    const rows = chunks.map((chunk, i) => ({
      ordinal: start + i,
      text: texts[start + i],
      page_numbers: chunk.pageNumbers,
      num_tokens: chunk.numTokens,
      num_terms: prepared.termCounts[start + i],
    }));
    await tx`INSERT INTO rag_chunks (index_id, ordinal, text, page_numbers, num_tokens, num_terms)
      SELECT ${id}, * FROM json_to_recordset(${JSON.stringify(rows)}::text::json)
        AS r(ordinal INTEGER, text TEXT, page_numbers INTEGER[], num_tokens INTEGER,
          num_terms INTEGER)`;
  }
  await tx`INSERT INTO rag_index_postings (index_id, data) VALUES (${id}, ${prepared.postings()})`;
  if (index.vectors.length > 0) {
    await copyIn(
      tx`COPY ${tx(vectors.table)} (index_id, ordinal, embedding) FROM STDIN (FORMAT binary)`,
      copyRows(BigInt(id), index.vectors, vectors.kind),
    );
  }
  return id;
}

/**
 * Links a chat's document to the index of `link.key` in a transaction, and
 * removes the index it linked to before when no chat links to that any more;
 * false when there is no such index.
 */
export async function linkIn(tx: Transaction, link: IndexLink): Promise<boolean> {
  await lock(tx, LINKS_LOCK);
  const [earlier] = await tx`SELECT index_id FROM rag_links
    WHERE chat_id = ${link.chatId} AND document_id = ${link.documentId}`;
  const [linked] = await tx`INSERT INTO rag_links (chat_id, document_id, index_id)
    SELECT ${link.chatId}, ${link.documentId}, id FROM rag_indexes WHERE key = ${link.key}
    ON CONFLICT (chat_id, document_id) DO UPDATE SET index_id = excluded.index_id
    RETURNING index_id`;
  if (linked === undefined) return false;
  if (earlier !== undefined && String(earlier.index_id) !== String(linked.index_id)) {
    await removeOrphans(tx, [String(earlier.index_id)]);
  }
  await nextLinksGeneration(tx);
  return true;
}

/** Counts a change to the links or indexes, which every process's kept links then give way to. */
export async function nextLinksGeneration(tx: Transaction): Promise<void> {
  await tx`UPDATE rag_meta SET value = (value::bigint + 1)::text WHERE name = ${LINKS_GENERATION}`;
}

/** Removes the indexes of `ids` that no chat links to, with their rows (by cascade). */
export async function removeOrphans(tx: Transaction, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx`DELETE FROM rag_indexes i WHERE i.id = ANY(${[...new Set(ids)]}::bigint[])
    AND NOT EXISTS (SELECT 1 FROM rag_links l WHERE l.index_id = i.id)`;
}

/** Takes a lock named by text until the transaction ends; whoever takes it next waits. */
export async function lock(tx: Transaction, name: string): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`;
}

/** The table of the vectors of a dimension. */
export function vectorTableName(dimension: number): string {
  return `rag_vectors_${dimension}`;
}

/** A name as an SQL identifier, quoted. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
