/**
 * The indexes of the LibSQL source storage in a libSQL database: chunks with
 * an FTS5 full-text index (BM25) and their vectors in `F32_BLOB` columns.
 *
 * Vector search is an exact scan over the chat's own chunks, not the
 * `libsql_vector_idx` ANN index, on purpose. Measured on 2 cores with 512-dim
 * hash vectors (bench/retrieval_bench.ts has the scan's numbers):
 * - retrieval is always restricted to the chat's documents, and
 *   `vector_top_k` searches the whole index and cannot filter first. With
 *   10,000 vectors of which a chat owns 10%, the chat's top 10 taken from
 *   `vector_top_k` had a recall of 0.08 with k = 10 and 0.30 with k = 100;
 *   the exact scan of the chat's 1,000 vectors took 3 ms.
 * - the ANN graph makes inserts 100 times slower (250 against 26,000 rows per
 *   second at 10,000 rows), and indexing is what a user waits for after an
 *   upload: a 400-chunk PDF would take 1.6 s more.
 * - a chat's chunks are usually few (a 100-page PDF is about 400 chunks with
 *   the default settings); even a chat of 100,000 chunks is scanned in about
 *   130 ms with memory-mapped reads, small beside an answer.
 * The scan is exact, so the vector arm's recall is 1 by construction. Should
 * chats of millions of chunks matter, an ANN index per chat (or per large
 * document) is the way, not one over the whole database.
 *
 * The full-text arm is one FTS5 table for all chats: a query reads the
 * postings of its words across the database and keeps the chat's chunks, so
 * its cost grows with the database rather than the chat (about 50 ms for a
 * chat of 1,000 chunks in a database of 100,000; restricting FTS5 by rowid
 * ranges was measured and did not help).
 * @module
 */
import type { Client, InStatement, InValue } from "@libsql/client";
import { contentWords } from "../embeddings/_words.ts";
import { reclaimSpace } from "../sqlite_space.ts";
import { abandoned, newBuilder, runBuild } from "./_builders.ts";
import {
  type IndexBackend,
  type IndexInfo,
  indexInfoOf,
  type IndexLink,
  type NewIndex,
  type SearchQuery,
  type StoredChunk,
} from "../indexing/mod.ts";

// Rows per write; between them other requests get their turn.
const BATCH_ROWS = 200;
const SCHEMA_VERSION = "1";
const MAX_QUERY_TERMS = 32;

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
  // Porter stems English ("braided" finds "braid"); remove_diacritics lets
  // "cafe" find "café".
  `CREATE VIRTUAL TABLE IF NOT EXISTS rag_chunks_fts USING fts5(
    text, content='rag_chunks', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
  )`,
  `CREATE TRIGGER IF NOT EXISTS rag_chunks_insert AFTER INSERT ON rag_chunks BEGIN
    INSERT INTO rag_chunks_fts (rowid, text) VALUES (new.id, new.text);
  END`,
  `CREATE TRIGGER IF NOT EXISTS rag_chunks_delete AFTER DELETE ON rag_chunks BEGIN
    INSERT INTO rag_chunks_fts (rag_chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
  END`,
  `CREATE TABLE IF NOT EXISTS rag_links (
    chat_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    index_id INTEGER NOT NULL REFERENCES rag_indexes (id),
    PRIMARY KEY (chat_id, document_id)
  )`,
  `CREATE INDEX IF NOT EXISTS rag_links_by_index ON rag_links (index_id)`,
  // Who writes an incomplete index, and when it last wrote (see _builders.ts):
  // a build that stopped is found and removed, whenever it stopped.
  `CREATE TABLE IF NOT EXISTS rag_builds (
    index_id INTEGER PRIMARY KEY,
    builder TEXT NOT NULL,
    heartbeat INTEGER NOT NULL
  )`,
];

/** Options of {@linkcode LibSQLBackend.open}. */
export interface LibSQLBackendOptions {
  /**
   * Whether removing indexes gives their space back to the disk (a file; see
   * `reclaimSpace`).
   * @default {false}
   */
  reclaimSpace?: boolean;
}

/**
 * The LibSQL storage's indexes in an open libSQL database. Tables are named
 * `rag_*`, so the database may hold other tables too. Vectors of each
 * dimension have their own table, `rag_vectors_<dimension>`, since an
 * `F32_BLOB` column has one dimension.
 */
export class LibSQLBackend implements IndexBackend {
  readonly #client: Client;
  readonly #reclaimSpace: boolean;
  readonly #vectorTables = new Set<number>();

  private constructor(client: Client, options: LibSQLBackendOptions) {
    this.#client = client;
    this.#reclaimSpace = options.reclaimSpace ?? false;
  }

  /** Creates the tables the database lacks and removes abandoned builds. */
  static async open(client: Client, options: LibSQLBackendOptions = {}): Promise<LibSQLBackend> {
    await client.batch(SCHEMA, "write");
    const version = await client.execute(`SELECT value FROM rag_meta WHERE name = 'schema'`);
    const found = version.rows[0]?.value;
    if (found === undefined) {
      await client.execute(
        `INSERT OR IGNORE INTO rag_meta (name, value) VALUES ('schema', '${SCHEMA_VERSION}')`,
      );
    } else if (found !== SCHEMA_VERSION) {
      throw new Error(
        `its rag_* tables have schema version ${found}, and this svc knows ${SCHEMA_VERSION}`,
      );
    }
    const backend = new LibSQLBackend(client, options);
    await backend.#sweep();
    return backend;
  }

  async link(link: IndexLink): Promise<boolean> {
    const earlier = await this.#linkedIndex(link);
    const [linked] = await this.#client.batch([
      linkStatement(link),
      ...earlier ? await this.#removeIndex(earlier.id, earlier.dimension, "orphan") : [],
    ], "write");
    return linked!.rowsAffected > 0;
  }

  async add(index: NewIndex, link: IndexLink): Promise<void> {
    // Builds that stopped give their rows, and their space, to this one.
    await this.#sweep();
    const table = await this.#vectorTable(index.dimension);
    // Running before its first row exists, so that no sweep takes it for abandoned.
    const builder = await newBuilder();
    using _running = runBuild(builder);
    const now = Date.now();
    const [created] = await this.#client.batch([
      {
        sql: `INSERT INTO rag_indexes (pending_key, content_hash, chunk_size, chunk_overlap,
          embedder, dimension, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        args: [
          index.key,
          index.contentHash,
          index.chunkSize,
          index.chunkOverlap,
          index.embedder,
          index.dimension,
          now,
        ],
      },
      {
        sql:
          `INSERT INTO rag_builds (index_id, builder, heartbeat) VALUES (last_insert_rowid(), ?, ?)`,
        args: [builder, now],
      },
    ], "write");
    const id = Number(created!.rows[0]!.id);
    try {
      for (let start = 0; start < index.chunks.length; start += BATCH_ROWS) {
        const statements: InStatement[] = [];
        const end = Math.min(start + BATCH_ROWS, index.chunks.length);
        for (let ordinal = start; ordinal < end; ordinal++) {
          const chunk = index.chunks[ordinal]!;
          statements.push({
            sql: `INSERT INTO rag_chunks (index_id, ordinal, text, page_numbers, num_tokens)
              VALUES (?, ?, ?, ?, ?)`,
            args: [id, ordinal, chunk.text, JSON.stringify(chunk.pageNumbers), chunk.numTokens],
          }, {
            // The trigger's inserts do not change last_insert_rowid() once it ends.
            sql: `INSERT INTO ${table} (chunk_id, index_id, embedding)
              VALUES (last_insert_rowid(), ?, ?)`,
            args: [id, vectorBytes(index.vectors[ordinal]!)],
          });
        }
        statements.push({
          sql: `UPDATE rag_builds SET heartbeat = ? WHERE index_id = ?`,
          args: [Date.now(), id],
        });
        await this.#client.batch(statements, "write");
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      // Complete: give it its key, unless another process stored the same
      // key meanwhile; link to whichever has it, and drop ours if it lost.
      const earlier = await this.#linkedIndex(link);
      await this.#client.batch([
        {
          sql: `UPDATE rag_indexes SET key = pending_key WHERE id = ?
            AND NOT EXISTS (SELECT 1 FROM rag_indexes WHERE key = ?)`,
          args: [id, index.key],
        },
        { sql: `DELETE FROM rag_builds WHERE index_id = ?`, args: [id] },
        linkStatement(link),
        ...await this.#removeIndex(id, index.dimension, "abandoned"),
        ...earlier ? await this.#removeIndex(earlier.id, earlier.dimension, "orphan") : [],
      ], "write");
    } catch (error) {
      // When this fails too (a full disk), the rows go at the next sweep.
      await this.#client.batch(await this.#removeIndex(id, index.dimension, "abandoned"), "write")
        .catch(() => {});
      throw error;
    }
  }

  async links(chatId: string): Promise<Map<string, IndexInfo>> {
    const result = await this.#client.execute({
      sql: `SELECT l.document_id, i.key, i.content_hash, i.chunk_size, i.chunk_overlap,
          i.embedder, i.dimension
        FROM rag_links l JOIN rag_indexes i ON i.id = l.index_id WHERE l.chat_id = ?`,
      args: [chatId],
    });
    return new Map(result.rows.map((row) => [String(row.document_id), indexInfoOf(row)]));
  }

  async unlink(chatId: string): Promise<void> {
    const linked = await this.#client.execute({
      sql: `SELECT DISTINCT i.id, i.dimension
        FROM rag_links l JOIN rag_indexes i ON i.id = l.index_id WHERE l.chat_id = ?`,
      args: [chatId],
    });
    const removals = await Promise.all(
      linked.rows.map((row) => this.#removeIndex(Number(row.id), Number(row.dimension), "orphan")),
    );
    await this.#client.batch([
      { sql: `DELETE FROM rag_links WHERE chat_id = ?`, args: [chatId] },
      ...removals.flat(),
    ], "write");
    await this.#sweep({ reclaim: linked.rows.length > 0 });
  }

  async search(keys: readonly string[], query: SearchQuery): Promise<StoredChunk[][]> {
    const found = await this.#client.execute({
      sql: `SELECT id, key FROM rag_indexes WHERE key IN (${marks(keys.length)})`,
      args: [...keys],
    });
    const keyOf = new Map(found.rows.map((row) => [Number(row.id), String(row.key)]));
    if (keyOf.size === 0) return [[], []];
    const ids = [...keyOf.keys()];
    const columns = `c.index_id, c.ordinal, c.text, c.page_numbers, c.num_tokens`;

    const terms = queryTerms(query.text);
    query.signal?.throwIfAborted();
    const text = terms.length === 0 ? { rows: [] } : await this.#client.execute({
      sql: `SELECT ${columns} FROM rag_chunks_fts JOIN rag_chunks c ON c.id = rag_chunks_fts.rowid
        WHERE rag_chunks_fts MATCH ? AND c.index_id IN (${marks(ids.length)})
        ORDER BY bm25(rag_chunks_fts), c.id LIMIT ?`,
      // Each word quoted, so that nothing in a prompt reads as FTS5 syntax.
      args: [terms.map((term) => `"${term}"`).join(" OR "), ...ids, query.limit],
    });

    query.signal?.throwIfAborted();
    const table = `rag_vectors_${query.vector.length}`;
    const vector = await this.#hasVectors(query.vector.length)
      ? await this.#client.execute({
        sql: `WITH top AS (
            SELECT chunk_id, vector_distance_cos(embedding, ?) AS distance FROM ${table}
            WHERE index_id IN (${marks(ids.length)}) ORDER BY distance, chunk_id LIMIT ?
          )
          SELECT ${columns} FROM top JOIN rag_chunks c ON c.id = top.chunk_id
          ORDER BY top.distance, c.id`,
        args: [vectorBytes(query.vector), ...ids, query.limit],
      })
      : { rows: [] };

    const chunkOf = (row: Record<string, unknown>): StoredChunk => ({
      key: keyOf.get(Number(row.index_id))!,
      ordinal: Number(row.ordinal),
      text: String(row.text),
      pageNumbers: JSON.parse(String(row.page_numbers)),
      numTokens: Number(row.num_tokens),
    });
    return [text.rows.map(chunkOf), vector.rows.map(chunkOf)];
  }

  async chunks(key: string): Promise<StoredChunk[]> {
    const found = await this.#client.execute({
      sql: `SELECT c.ordinal, c.text, c.page_numbers, c.num_tokens
        FROM rag_chunks c JOIN rag_indexes i ON i.id = c.index_id
        WHERE i.key = ? ORDER BY c.ordinal`,
      args: [key],
    });
    return found.rows.map((row) => ({
      key,
      ordinal: Number(row.ordinal),
      text: String(row.text),
      pageNumbers: JSON.parse(String(row.page_numbers)),
      numTokens: Number(row.num_tokens),
    }));
  }

  /**
   * Removes the rows of every incomplete index whose build has stopped (see
   * `_builders.ts`), then gives the space back when anything was removed or
   * `reclaim` asks. Best effort: what cannot be removed now (a full disk) is
   * found again at the next sweep.
   */
  async #sweep(options: { reclaim?: boolean } = {}): Promise<void> {
    let removed = false;
    try {
      const pending = await this.#client.execute(
        `SELECT i.id, i.dimension, i.created_at, b.builder, b.heartbeat
          FROM rag_indexes i LEFT JOIN rag_builds b ON b.index_id = i.id WHERE i.key IS NULL`,
      );
      for (const row of pending.rows) {
        const build = {
          builder: row.builder === null ? undefined : String(row.builder),
          heartbeat: Number(row.heartbeat ?? row.created_at),
        };
        if (!(await abandoned(build))) continue;
        await this.#client.batch(
          await this.#removeIndex(Number(row.id), Number(row.dimension), "abandoned"),
          "write",
        );
        removed = true;
      }
    } catch {
      // The caller's own write meets the same fault, and says so.
    }
    if ((removed || options.reclaim) && this.#reclaimSpace) await reclaimSpace(this.#client);
  }

  async #linkedIndex(link: IndexLink): Promise<{ id: number; dimension: number } | undefined> {
    const result = await this.#client.execute({
      sql: `SELECT i.id, i.dimension FROM rag_links l JOIN rag_indexes i ON i.id = l.index_id
        WHERE l.chat_id = ? AND l.document_id = ?`,
      args: [link.chatId, link.documentId],
    });
    const row = result.rows[0];
    return row && { id: Number(row.id), dimension: Number(row.dimension) };
  }

  /**
   * Statements that remove an index with its chunks and vectors when, as they
   * run, it is "orphan" (complete and linked by no chat) or "abandoned"
   * (never completed).
   */
  async #removeIndex(
    id: number,
    dimension: number,
    when: "orphan" | "abandoned",
  ): Promise<InStatement[]> {
    const [condition, conditionArgs] = when === "orphan"
      ? [`key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM rag_links WHERE index_id = ?)`, [id]]
      : [`key IS NULL`, []];
    const applies = `EXISTS (SELECT 1 FROM rag_indexes WHERE id = ? AND ${condition})`;
    const args = [id, id, ...conditionArgs];
    const statements: InStatement[] = [];
    if (await this.#hasVectors(dimension)) {
      statements.push({
        sql: `DELETE FROM rag_vectors_${dimension} WHERE index_id = ? AND ${applies}`,
        args,
      });
    }
    statements.push(
      { sql: `DELETE FROM rag_chunks WHERE index_id = ? AND ${applies}`, args },
      { sql: `DELETE FROM rag_builds WHERE index_id = ? AND ${applies}`, args },
      {
        sql: `DELETE FROM rag_indexes WHERE id = ? AND ${condition}`,
        args: [id, ...conditionArgs],
      },
    );
    return statements;
  }

  /** The table of vectors of a dimension, created when missing. */
  async #vectorTable(dimension: number): Promise<string> {
    if (!Number.isInteger(dimension) || dimension < 1) {
      throw new RangeError(`A vector dimension must be a positive integer, not ${dimension}`);
    }
    const table = `rag_vectors_${dimension}`;
    if (!this.#vectorTables.has(dimension)) {
      await this.#client.batch([
        `CREATE TABLE IF NOT EXISTS ${table} (
          chunk_id INTEGER PRIMARY KEY REFERENCES rag_chunks (id),
          index_id INTEGER NOT NULL,
          embedding F32_BLOB(${dimension}) NOT NULL
        )`,
        `CREATE INDEX IF NOT EXISTS ${table}_by_index ON ${table} (index_id)`,
      ], "write");
      this.#vectorTables.add(dimension);
    }
    return table;
  }

  async #hasVectors(dimension: number): Promise<boolean> {
    if (this.#vectorTables.has(dimension)) return true;
    const result = await this.#client.execute({
      sql: `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`,
      args: [`rag_vectors_${dimension}`],
    });
    if (result.rows.length > 0) this.#vectorTables.add(dimension);
    return result.rows.length > 0;
  }
}

/**
 * The words a full-text query looks for. Each word costs a read of its
 * postings across the whole database, so a long prompt (a pasted page) keeps
 * its longest words, which tend to be the rarer and more telling ones.
 */
function queryTerms(text: string): string[] {
  const terms = [...new Set(contentWords(text))];
  if (terms.length <= MAX_QUERY_TERMS) return terms;
  const longest = new Set(
    [...terms].sort((a, b) => b.length - a.length).slice(0, MAX_QUERY_TERMS),
  );
  return terms.filter((term) => longest.has(term));
}

function linkStatement(link: IndexLink): InStatement {
  return {
    sql: `INSERT INTO rag_links (chat_id, document_id, index_id)
      SELECT ?, ?, id FROM rag_indexes WHERE key = ?
      ON CONFLICT (chat_id, document_id) DO UPDATE SET index_id = excluded.index_id`,
    args: [link.chatId, link.documentId, link.key],
  };
}

/** A vector as the bytes of its float32 values, which is how `F32_BLOB` stores it. */
function vectorBytes(vector: Float32Array): InValue {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

function marks(count: number): string {
  return Array.from({ length: count }, () => "?").join(", ");
}
