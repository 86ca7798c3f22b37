/**
 * The LibSQL storage's tables (named `rag_*`, so that the database may hold
 * others), created and brought to this svc's version, and the statements the
 * backend writes them with. Vectors of each dimension have their own table,
 * `rag_vectors_<dimension>`, since an `F32_BLOB` column has one dimension.
 * @module
 */
import type { Client, InStatement, InValue } from "@libsql/client";
import { checkedDimension, type IndexLink } from "../indexing/mod.ts";

const SCHEMA_VERSION = "2";
// Version 1 kept an FTS5 table of the chunks' text, filled by triggers, which
// search stopped reading once it ranked in memory, and which made storing a
// chunk slow. Version 2 drops it; an svc of version 1 refuses the database,
// naming both versions, rather than search without it.
const TO_VERSION_2 = [
  `DROP TRIGGER IF EXISTS rag_chunks_insert`,
  `DROP TRIGGER IF EXISTS rag_chunks_delete`,
  `DROP TABLE IF EXISTS rag_chunks_fts`,
  `UPDATE rag_meta SET value = '2' WHERE name = 'schema' AND value = '1'`,
];

// The count of writes to the tables, which a search checks the rows it keeps against.
const START_GENERATION = `INSERT OR IGNORE INTO rag_meta (name, value) VALUES ('generation', '0')`;
export const NEXT_GENERATION =
  `UPDATE rag_meta SET value = CAST(value AS INTEGER) + 1 WHERE name = 'generation'`;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS rag_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  // key is NULL while the index is built, so that no one links to it early.
  `CREATE TABLE IF NOT EXISTS rag_indexes (
    id INTEGER PRIMARY KEY,
    key TEXT UNIQUE,
    pending_key TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    chunk_size INTEGER NOT NULL,
    chunk_overlap INTEGER NOT NULL,
    embedder TEXT NOT NULL,
    dimension INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS rag_chunks (
    id INTEGER PRIMARY KEY,
    index_id INTEGER NOT NULL REFERENCES rag_indexes (id),
    ordinal INTEGER NOT NULL,
    text TEXT NOT NULL,
    page_numbers TEXT NOT NULL,
    num_tokens INTEGER NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS rag_chunks_by_index ON rag_chunks (index_id, ordinal)`,
  // Each index's postings for the full-text ranking (TermPostings.toBytes()), so that its first
  // search after a start reads them rather than building them from the texts: kept for the index
  // made at created_at, and read for no other that took its id since.
  `CREATE TABLE IF NOT EXISTS rag_postings (
    index_id INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    data BLOB NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS rag_links (
    chat_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    index_id INTEGER NOT NULL REFERENCES rag_indexes (id),
    PRIMARY KEY (chat_id, document_id)
  )`,
  `CREATE INDEX IF NOT EXISTS rag_links_by_index ON rag_links (index_id)`,
  // Who writes an incomplete index, and when it last wrote (see indexing/builds.ts):
  // a build that stopped is found and removed, whenever it stopped.
  `CREATE TABLE IF NOT EXISTS rag_builds (
    index_id INTEGER PRIMARY KEY,
    builder TEXT NOT NULL,
    heartbeat INTEGER NOT NULL
  )`,
];

/**
 * Creates the tables the database lacks, and brings those of version 1 to 2.
 *
 * @throws {Error} when the tables are of a version this svc does not know
 */
export async function createTables(client: Client): Promise<void> {
  await client.batch(SCHEMA, "write");
  const version = await client.execute(`SELECT value FROM rag_meta WHERE name = 'schema'`);
  const found = version.rows[0]?.value;
  if (found === undefined) {
    await client.execute(
      `INSERT OR IGNORE INTO rag_meta (name, value) VALUES ('schema', '${SCHEMA_VERSION}')`,
    );
  } else if (found !== "1" && found !== SCHEMA_VERSION) {
    throw new Error(
      `its rag_* tables have schema version ${found}, and this svc knows ${SCHEMA_VERSION}`,
    );
  }
  // At every start: an svc of version 1 that opened the database since made the table again
  // before it refused the database.
  await client.batch([...TO_VERSION_2, START_GENERATION], "write");
}

/** The statements that create the table of vectors of a dimension. */
export function vectorTable(dimension: number): string[] {
  const table = `rag_vectors_${checkedDimension(dimension)}`;
  return [
    `CREATE TABLE IF NOT EXISTS ${table} (
      chunk_id INTEGER PRIMARY KEY REFERENCES rag_chunks (id),
      index_id INTEGER NOT NULL,
      embedding F32_BLOB(${dimension}) NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS ${table}_by_index ON ${table} (index_id)`,
  ];
}

/**
 * Statements that remove an index with its chunks and vectors (those of
 * `dimension`, when there is a table of them) when, as they run, it is
 * "orphan" (complete and linked by no chat) or "abandoned" (never completed).
 */
export function removeIndex(
  id: number,
  when: "orphan" | "abandoned",
  dimension: number | undefined,
): InStatement[] {
  const [condition, conditionArgs] = when === "orphan"
    ? [`key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM rag_links WHERE index_id = ?)`, [id]]
    : [`key IS NULL`, []];
  const applies = `EXISTS (SELECT 1 FROM rag_indexes WHERE id = ? AND ${condition})`;
  const args = [id, id, ...conditionArgs];
  return [
    ...dimension === undefined ? [] : [{
      sql: `DELETE FROM rag_vectors_${dimension} WHERE index_id = ? AND ${applies}`,
      args,
    }],
    { sql: `DELETE FROM rag_postings WHERE index_id = ? AND ${applies}`, args },
    { sql: `DELETE FROM rag_chunks WHERE index_id = ? AND ${applies}`, args },
    { sql: `DELETE FROM rag_builds WHERE index_id = ? AND ${applies}`, args },
    { sql: `DELETE FROM rag_indexes WHERE id = ? AND ${condition}`, args: [id, ...conditionArgs] },
  ];
}

/**
 * Keeps an index's postings, for the index made at `createdAt`; with `ifIndexed`, only while that
 * index is still there (postings built by a search, which a removal may have overtaken).
 */
export function postingsStatement(
  id: number,
  createdAt: number,
  data: Uint8Array,
  options: { ifIndexed?: boolean } = {},
): InStatement {
  return options.ifIndexed
    ? {
      sql: `INSERT OR REPLACE INTO rag_postings (index_id, created_at, data)
        SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM rag_indexes WHERE id = ? AND created_at = ?)`,
      args: [id, createdAt, data, id, createdAt],
    }
    : {
      sql: `INSERT OR REPLACE INTO rag_postings (index_id, created_at, data) VALUES (?, ?, ?)`,
      args: [id, createdAt, data],
    };
}

export function linkStatement(link: IndexLink): InStatement {
  return {
    sql: `INSERT INTO rag_links (chat_id, document_id, index_id)
      SELECT ?, ?, id FROM rag_indexes WHERE key = ?
      ON CONFLICT (chat_id, document_id) DO UPDATE SET index_id = excluded.index_id`,
    args: [link.chatId, link.documentId, link.key],
  };
}

/**
 * A complete index's row id, key and time of creation, and its name in
 * search's memory ({@linkcode cacheKey}), made once when the row is read.
 */
export interface StoredIndex {
  id: number;
  key: string;
  createdAt: number;
  cacheKey: string;
}

/**
 * The name of an index in search's memory. An id may be reused once its
 * index is removed; with its creation time it names one index (whose key
 * names its dimension).
 */
export function cacheKey(id: number, createdAt: number): string {
  return `${id}/${createdAt}`;
}

/** A vector as the bytes of its float32 values, which is how `F32_BLOB` stores it. */
export function vectorBytes(vector: Float32Array): InValue {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** `?, ?, ?` for `count` arguments. */
export function marks(count: number): string {
  return Array.from({ length: count }, () => "?").join(", ");
}
