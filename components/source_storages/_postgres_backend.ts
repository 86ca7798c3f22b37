/**
 * The indexes of the Postgres source storage in a PostgreSQL database: chunks,
 * the postings of svc's BM25 (the words and stems of `_bm25.ts`, counted per
 * chunk) and the chunks' vectors, in `rag_*` tables.
 *
 * The full-text arm is svc's own BM25 computed by PostgreSQL over postings
 * kept in a table, so that it ranks as the other storages do (Chroma's BM25 in
 * memory, over the same words and stems; LibSQL's FTS5, BM25 with the same
 * constants). PostgreSQL's own full-text search (a `tsvector` of the
 * `english` configuration with a GIN index) was measured in its place with
 * `svc eval` on the labelled set, fused the same way, and ranked worse: MRR
 * 0.725 with `ts_rank` and 0.670 with `ts_rank_cd`, against 0.735 (hit@1
 * 0.658 and 0.592 against 0.671), and at chunks of 200 tokens 0.667 and 0.641
 * against 0.673. A query reads the postings of its words in the chat's own
 * indexes only, so its cost grows with the chat, not the database.
 *
 * Vectors: with the `vector` extension (pgvector) in the database, a table
 * per dimension of `vector` columns with an HNSW index (cosine), made once
 * the table holds more than `exactScanMax` vectors, since no chat can need it
 * before and every vector written into it costs. A chat of up
 * to `exactScanMax` chunks is scanned exactly, which is fast at that size and
 * exact; a larger chat is searched through the HNSW index with pgvector's
 * iterative scan, which goes on through the graph until it has found the
 * chat's nearest chunks rather than stopping at chunks of other chats, and
 * when that still finds fewer than asked, the chat is scanned exactly. Without
 * the extension, vectors are the bytes of their float32 values, and every
 * search is an exact scan of the chat's vectors in memory: read from the
 * database at an index's first search and kept, within a budget
 * (`_search_cache.ts`), since an index never changes. PostgreSQL has no
 * arithmetic of its own over arrays that is fast enough: a scan in SQL
 * (`unnest` of `real[]` columns) took 3 s over 10,000 vectors of 512
 * dimensions.
 *
 * An index is written in one transaction, so that a process that stops midway
 * (a crash, SIGKILL, a lost connection) leaves nothing of it behind. Two
 * processes that store the same index at once take turns on a transaction
 * lock of its key: the second finds the first's index and links to it, and
 * the key's unique constraint stands behind that. Links and the removal of
 * unused indexes take one lock of their own, so that no index is removed
 * while another chat links to it.
 * @module
 */
import type * as Postgres from "npm:postgres@3.4.9";
import { B, Bm25Index, K1, queryTerms } from "./_bm25.ts";
import { nearestExactly, type Place } from "./_memory_search.ts";
import { DEFAULT_SEARCH_MEMORY, SearchCache, type Sized } from "./_search_cache.ts";
import { stem } from "../embeddings/_words.ts";
import {
  type IndexBackend,
  type IndexInfo,
  indexInfoOf,
  type IndexLink,
  type NewIndex,
  type SearchQuery,
  type StoredChunk,
} from "../indexing/mod.ts";

type Sql = Postgres.Sql;
type Transaction = Postgres.TransactionSql;

const SCHEMA_VERSION = "1";
// Rows per statement: a few megabytes of JSON at most.
const CHUNK_ROWS = 500;
const VECTOR_ROWS = 200;
const POSTING_ROWS = 10_000;
// pgvector's HNSW index takes vectors of up to 2,000 dimensions.
const HNSW_MAX_DIMENSION = 2000;
// pgvector's largest ef_search: the candidates the graph search keeps. Over 10,000 vectors of the
// hash embedder, the top 10's recall was 0.49 with 100, 0.77 with 400 and 0.93 with 1,000 (15, 19
// and 27 ms, against 139 ms for the exact scan).
const MAX_EF_SEARCH = 1000;

/**
 * The most chunks of a chat whose vectors are scanned exactly when pgvector is
 * there: such a scan takes some milliseconds, and is exact.
 */
export const EXACT_SCAN_MAX = 10_000;

// Locks of transactions (pg_advisory_xact_lock), named by text.
const SCHEMA_LOCK = "svc rag schema";
const LINKS_LOCK = "svc rag links";

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
  // A chunk's count of a term (a stem of svc's words); read by term within the chat's indexes.
  `CREATE TABLE IF NOT EXISTS rag_postings (
    index_id BIGINT NOT NULL REFERENCES rag_indexes (id) ON DELETE CASCADE,
    term TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (index_id, term, ordinal)
  )`,
  `CREATE TABLE IF NOT EXISTS rag_links (
    chat_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    index_id BIGINT NOT NULL REFERENCES rag_indexes (id),
    PRIMARY KEY (chat_id, document_id)
  )`,
  `CREATE INDEX IF NOT EXISTS rag_links_by_index ON rag_links (index_id)`,
];

/** Options of {@linkcode PostgresBackend.open}. */
export interface PostgresBackendOptions {
  /**
   * The most chunks of a chat whose vectors are scanned exactly when pgvector
   * is there; a larger chat is searched through the HNSW index.
   * @default {EXACT_SCAN_MAX}
   */
  exactScanMax?: number;
}

/** How a table of vectors keeps them: pgvector's type (with its schema), or bytes. */
type VectorKind = { pgvector: string } | { pgvector: undefined };

/** The vectors of an index, one after the other, as a search keeps them in memory. */
interface HeldVectors extends Sized {
  values: Float32Array;
}

/** An index of the chat as a search sees it. */
interface Found {
  id: string;
  key: string;
  chunkCount: number;
}

/**
 * The Postgres storage's indexes in a PostgreSQL database. Tables are named
 * `rag_*`, so the database may hold other tables too (svc's own). Vectors of
 * each dimension have their own table, `rag_vectors_<dimension>`.
 */
export class PostgresBackend implements IndexBackend {
  readonly #sql: Sql;
  readonly #exactScanMax: number;
  // The schema of the vector extension, when the database has it.
  readonly #pgvector: string | undefined;
  readonly #vectorTables = new Map<number, VectorKind>();
  // The dimensions whose vectors have their HNSW index.
  readonly #hnsw = new Set<number>();
  readonly #held = new SearchCache<HeldVectors>(DEFAULT_SEARCH_MEMORY);
  readonly #holding = new Map<string, Promise<HeldVectors>>();

  private constructor(sql: Sql, pgvector: string | undefined, options: PostgresBackendOptions) {
    this.#sql = sql;
    this.#pgvector = pgvector;
    this.#exactScanMax = options.exactScanMax ?? EXACT_SCAN_MAX;
  }

  /**
   * Creates the tables the database lacks, one process at a time, and finds
   * out whether it has pgvector.
   *
   * @throws {Error} when the tables are of another version of svc
   */
  static async open(sql: Sql, options: PostgresBackendOptions = {}): Promise<PostgresBackend> {
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
    });
    const [extension] = await sql`SELECT n.nspname AS schema FROM pg_extension e
      JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`;
    return new PostgresBackend(sql, extension?.schema, options);
  }

  /** Whether the database has pgvector, which vector search then uses. */
  get pgvector(): boolean {
    return this.#pgvector !== undefined;
  }

  link(link: IndexLink): Promise<boolean> {
    return this.#sql.begin((tx) => linkIn(tx, link));
  }

  async add(index: NewIndex, link: IndexLink): Promise<void> {
    const table = await this.#vectorTable(index.dimension);
    const kind = this.#vectorTables.get(index.dimension)!;
    const terms = Bm25Index.build(index.chunks.map((chunk) => chunk.text));
    const indexed = await this.#sql.begin(async (tx) => {
      // Another process storing the same index waits here, then finds it.
      await lock(tx, `svc rag index ${index.key}`);
      const [existing] = await tx`SELECT id FROM rag_indexes WHERE key = ${index.key}`;
      let indexed = false;
      if (existing === undefined) {
        const hnsw = await this.#needsHnsw(tx, index);
        // Before any row is written, so that no writer holds the table while waiting for this.
        if (hnsw) await lock(tx, SCHEMA_LOCK);
        await writeIndex(tx, index, terms, { table, kind });
        if (hnsw) {
          await tx.unsafe(`CREATE INDEX IF NOT EXISTS ${table}_hnsw ON ${table}
            USING hnsw (embedding ${kind.pgvector}.vector_cosine_ops)`);
          indexed = true;
        }
      }
      if (!(await linkIn(tx, link))) throw new Error("the index was not stored");
      return indexed;
    });
    if (indexed) this.#hnsw.add(index.dimension);
  }

  /**
   * Whether storing `index` is to make the HNSW index of its dimension: with
   * pgvector, once the vectors of the dimension outnumber `exactScanMax`.
   * Before, every chat is scanned exactly, and each vector written into the
   * graph costs (some milliseconds at 512 dimensions); one index made of the
   * vectors stored costs less than making it one vector at a time.
   */
  async #needsHnsw(tx: Transaction, index: NewIndex): Promise<boolean> {
    const { dimension } = index;
    if (this.#pgvector === undefined || dimension > HNSW_MAX_DIMENSION) return false;
    if (this.#hnsw.has(dimension)) return false;
    const [made] = await tx`SELECT to_regclass(${`${vectorTableName(dimension)}_hnsw`}) AS name`;
    if (made!.name !== null) {
      this.#hnsw.add(dimension);
      return false;
    }
    const [stored] = await tx`SELECT coalesce(sum(chunk_count), 0)::float8 AS chunks
      FROM rag_indexes WHERE dimension = ${dimension}`;
    return stored!.chunks + index.chunks.length > this.#exactScanMax;
  }

  async links(chatId: string): Promise<Map<string, IndexInfo>> {
    const rows = await this.#sql`SELECT l.document_id, i.key, i.content_hash, i.chunk_size,
        i.chunk_overlap, i.embedder, i.dimension
      FROM rag_links l JOIN rag_indexes i ON i.id = l.index_id WHERE l.chat_id = ${chatId}`;
    return new Map(rows.map((row) => [String(row.document_id), indexInfoOf(row)]));
  }

  async unlink(chatId: string): Promise<void> {
    await this.#sql.begin(async (tx) => {
      await lock(tx, LINKS_LOCK);
      const unlinked = await tx`DELETE FROM rag_links WHERE chat_id = ${chatId} RETURNING index_id`;
      await removeOrphans(tx, unlinked.map((row) => String(row.index_id)));
    });
  }

  async search(keys: readonly string[], query: SearchQuery): Promise<StoredChunk[][]> {
    const rows = await this.#sql`SELECT id, key, chunk_count FROM rag_indexes
      WHERE key = ANY(${[...keys]}::text[])`;
    const byKey = new Map(rows.map((row) => [String(row.key), row]));
    // In the order of `keys`, which breaks ties of both rankings.
    const found: Found[] = keys.filter((key) => byKey.has(key)).map((key) => ({
      id: String(byKey.get(key)!.id),
      key,
      chunkCount: Number(byKey.get(key)!.chunk_count),
    }));
    if (found.length === 0) return [[], []];
    query.signal?.throwIfAborted();
    const text = await this.#textSearch(found, query);
    query.signal?.throwIfAborted();
    const vector = await this.#vectorSearch(found, query);
    return [text, vector];
  }

  async chunks(key: string): Promise<StoredChunk[]> {
    const rows = await this.#sql`SELECT c.index_id, c.ordinal, c.text, c.page_numbers, c.num_tokens
      FROM rag_chunks c JOIN rag_indexes i ON i.id = c.index_id
      WHERE i.key = ${key} ORDER BY c.ordinal`;
    return rows.map((row) => ({ ...chunkOf([])(row), key }));
  }

  /** svc's BM25 over the postings of the chat's indexes, as `bm25Search()` ranks in memory. */
  async #textSearch(found: Found[], query: SearchQuery): Promise<StoredChunk[]> {
    const terms = [...new Set(queryTerms(query.text).map(stem))];
    if (terms.length === 0) return [];
    const ids = found.map((index) => index.id);
    // Each term's weight once, rather than at each of its postings; the texts of the best alone.
    const rows = await this.#sql`WITH
      stats AS (
        SELECT sum(chunk_count)::float8 AS size, sum(term_count)::float8 AS total
        FROM rag_indexes WHERE id = ANY(${ids}::bigint[])
      ),
      weights AS (
        SELECT p.term, ln(1 + (s.size - count(*) + 0.5) / (count(*) + 0.5)) AS idf
        FROM rag_postings p CROSS JOIN stats s
        WHERE p.index_id = ANY(${ids}::bigint[]) AND p.term = ANY(${terms}::text[])
        GROUP BY p.term, s.size
      ),
      scores AS (
        SELECT p.index_id, p.ordinal, sum(
          w.idf * p.count * (${K1}::float8 + 1) /
          (p.count + ${K1}::float8 * (1 - ${B}::float8 + ${B}::float8 * c.num_terms /
            coalesce(nullif(s.total / s.size, 0), 1)))
        ) AS score
        FROM rag_postings p JOIN weights w USING (term)
          JOIN rag_chunks c USING (index_id, ordinal) CROSS JOIN stats s
        WHERE p.index_id = ANY(${ids}::bigint[]) AND p.term = ANY(${terms}::text[])
        GROUP BY p.index_id, p.ordinal
        ORDER BY score DESC, array_position(${ids}::bigint[], p.index_id), p.ordinal
        LIMIT ${query.limit}
      )
      SELECT c.index_id, c.ordinal, c.text, c.page_numbers, c.num_tokens
      FROM scores s JOIN rag_chunks c USING (index_id, ordinal)
      ORDER BY s.score DESC, array_position(${ids}::bigint[], c.index_id), c.ordinal`;
    return rows.map(chunkOf(found));
  }

  async #vectorSearch(found: Found[], query: SearchQuery): Promise<StoredChunk[]> {
    const dimension = query.vector.length;
    const kind = await this.#vectorKind(dimension);
    if (kind === undefined) return [];
    const table = this.#sql(vectorTableName(dimension));
    const ids = found.map((index) => index.id);
    const size = found.reduce((sum, index) => sum + index.chunkCount, 0);
    const limit = query.limit;
    const columns = this.#sql`c.index_id, c.ordinal, c.text, c.page_numbers, c.num_tokens`;
    const rank = this.#sql`array_position(${ids}::bigint[], c.index_id), c.ordinal`;
    let rows: Postgres.Row[];
    if (kind.pgvector === undefined) {
      const held = await Promise.all(found.map((index) => this.#heldVectors(index, dimension)));
      const places = held.flatMap((vectors, index) =>
        Array.from({ length: vectors.values.length / dimension }, (_, chunk) => ({ index, chunk }))
      );
      const nearest = nearestExactly(
        places,
        ({ index, chunk }: Place) =>
          held[index]!.values.subarray(chunk * dimension, (chunk + 1) * dimension),
        query.vector,
        { limit, tie: (a, b) => a.index - b.index || a.chunk - b.chunk },
      );
      rows = await this.#sql`SELECT ${columns}
        FROM unnest(${nearest.map(({ index }) => found[index]!.id)}::bigint[],
          ${nearest.map(({ chunk }) => chunk)}::int[]) WITH ORDINALITY AS n(index_id, ordinal, rank)
        JOIN rag_chunks c USING (index_id, ordinal) ORDER BY n.rank`;
    } else {
      const vector = this.#sql.unsafe(`${kind.pgvector}.vector`);
      const distance = this.#sql.unsafe(`OPERATOR(${kind.pgvector}.<=>)`);
      const literal = vectorText(query.vector);
      // "+ 0" keeps the HNSW index out: this scan is exact.
      const exact = () =>
        this.#sql`SELECT ${columns} FROM ${table} v JOIN rag_chunks c USING (index_id, ordinal)
          WHERE v.index_id = ANY(${ids}::bigint[])
          ORDER BY (v.embedding ${distance} ${literal}::${vector}) + 0 NULLS LAST, ${rank}
          LIMIT ${limit}`;
      if (size <= this.#exactScanMax || dimension > HNSW_MAX_DIMENSION) {
        rows = await exact();
      } else {
        rows = await this.#sql.begin(async (tx) => {
          // Through the graph in exact order of distance, until `limit` of the chat's are found.
          // The planner may rather read the chat's rows by their key and sort them all: exact,
          // but in time that grows with the chat, which is what the index is there to avoid.
          await tx`SELECT set_config('enable_seqscan', 'off', true),
            set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true),
            set_config('hnsw.iterative_scan', 'strict_order', true),
            set_config('hnsw.ef_search', ${String(MAX_EF_SEARCH)}, true),
            set_config('hnsw.max_scan_tuples', ${String(Math.max(20_000, 20 * size))}, true)`;
          return await tx`SELECT ${columns} FROM (
              SELECT index_id, ordinal, embedding ${distance} ${literal}::${vector} AS distance
              FROM ${table} WHERE index_id = ANY(${ids}::bigint[])
              ORDER BY embedding ${distance} ${literal}::${vector} LIMIT ${limit}
            ) v JOIN rag_chunks c USING (index_id, ordinal)
            ORDER BY v.distance, ${rank}`;
        });
        if (rows.length < Math.min(limit, size)) rows = await exact();
      }
    }
    return rows.map(chunkOf(found));
  }

  /** The table of vectors of a dimension, created when missing. */
  async #vectorTable(dimension: number): Promise<string> {
    if (!Number.isInteger(dimension) || dimension < 1) {
      throw new RangeError(`A vector dimension must be a positive integer, not ${dimension}`);
    }
    const table = vectorTableName(dimension);
    if (await this.#vectorKind(dimension)) return table;
    const pgvector = this.#pgvector;
    await this.#sql.begin(async (tx) => {
      await lock(tx, SCHEMA_LOCK);
      const column = pgvector === undefined
        ? `embedding BYTEA NOT NULL`
        : `embedding ${pgvector}.vector(${dimension}) NOT NULL`;
      await tx.unsafe(`CREATE TABLE IF NOT EXISTS ${table} (
        index_id BIGINT NOT NULL REFERENCES rag_indexes (id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        ${column},
        PRIMARY KEY (index_id, ordinal)
      )`);
    });
    this.#vectorTables.delete(dimension);
    await this.#vectorKind(dimension);
    return table;
  }

  /**
   * An index's vectors, from memory or read from the database (once, however
   * many searches ask at the same time).
   */
  async #heldVectors(index: Found, dimension: number): Promise<HeldVectors> {
    const known = this.#held.get(index.id);
    if (known) return known;
    let holding = this.#holding.get(index.id);
    if (!holding) {
      holding = (async () => {
        const values = new Float32Array(index.chunkCount * dimension);
        const bytes = new Uint8Array(values.buffer);
        const rows = await this.#sql`SELECT ordinal, embedding FROM ${
          this.#sql(vectorTableName(dimension))
        } WHERE index_id = ${index.id}`;
        for (const row of rows) bytes.set(row.embedding as Uint8Array, row.ordinal * dimension * 4);
        const held = { values, bytes: values.byteLength };
        this.#held.set(index.id, held);
        return held;
      })().finally(() => this.#holding.delete(index.id));
      this.#holding.set(index.id, holding);
    }
    return await holding;
  }

  /**
   * How the table of a dimension keeps its vectors, as it was created (a table
   * made before pgvector was added keeps bytes); undefined when there is none.
   */
  async #vectorKind(dimension: number): Promise<VectorKind | undefined> {
    const known = this.#vectorTables.get(dimension);
    if (known) return known;
    const [column] = await this.#sql`SELECT t.typname, n.nspname FROM pg_attribute a
      JOIN pg_type t ON t.oid = a.atttypid JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE a.attrelid = to_regclass(${vectorTableName(dimension)}) AND a.attname = 'embedding'`;
    if (column === undefined) return undefined;
    const kind: VectorKind = column.typname === "vector"
      ? { pgvector: quoteIdentifier(String(column.nspname)) }
      : { pgvector: undefined };
    this.#vectorTables.set(dimension, kind);
    return kind;
  }
}

/** Writes a new index: its row, chunks, postings and vectors. */
async function writeIndex(
  tx: Transaction,
  index: NewIndex,
  terms: Bm25Index,
  vectors: { table: string; kind: VectorKind },
): Promise<void> {
  const [created] = await tx`INSERT INTO rag_indexes (key, content_hash, chunk_size, chunk_overlap,
      embedder, dimension, chunk_count, term_count)
    VALUES (${index.key}, ${index.contentHash}, ${index.chunkSize}, ${index.chunkOverlap},
      ${index.embedder}, ${index.dimension}, ${index.chunks.length}, ${terms.totalLength})
    RETURNING id`;
  const id = String(created!.id);
  for (let start = 0; start < index.chunks.length; start += CHUNK_ROWS) {
    const rows = index.chunks.slice(start, start + CHUNK_ROWS).map((chunk, i) => ({
      ordinal: start + i,
      // PostgreSQL's text holds no NUL character.
      text: chunk.text.replaceAll("\u0000", ""),
      page_numbers: chunk.pageNumbers,
      num_tokens: chunk.numTokens,
      num_terms: terms.length(start + i),
    }));
    await tx`INSERT INTO rag_chunks (index_id, ordinal, text, page_numbers, num_tokens, num_terms)
      SELECT ${id}, * FROM json_to_recordset(${JSON.stringify(rows)}::text::json)
        AS r(ordinal INTEGER, text TEXT, page_numbers INTEGER[], num_tokens INTEGER,
          num_terms INTEGER)`;
  }
  const postings = { terms: [] as string[], ordinals: [] as number[], counts: [] as number[] };
  const flush = async () => {
    await tx`INSERT INTO rag_postings (index_id, term, ordinal, count)
      SELECT ${id}, * FROM unnest(${postings.terms}::text[], ${postings.ordinals}::int[],
        ${postings.counts}::int[])`;
    postings.terms = [];
    postings.ordinals = [];
    postings.counts = [];
  };
  for (const [term, pairs] of terms.terms()) {
    for (let p = 0; p < pairs.length; p += 2) {
      postings.terms.push(term);
      postings.ordinals.push(pairs[p]!);
      postings.counts.push(pairs[p + 1]!);
      if (postings.terms.length >= POSTING_ROWS) await flush();
    }
  }
  if (postings.terms.length > 0) await flush();
  const table = tx(vectors.table);
  for (let start = 0; start < index.vectors.length; start += VECTOR_ROWS) {
    const batch = index.vectors.slice(start, start + VECTOR_ROWS);
    const ordinals = batch.map((_, i) => start + i);
    if (vectors.kind.pgvector === undefined) {
      await tx`INSERT INTO ${table} (index_id, ordinal, embedding)
        SELECT ${id}, o, decode(e, 'hex')
        FROM unnest(${ordinals}::int[], ${batch.map(vectorHex)}::text[]) AS r(o, e)`;
    } else {
      const type = tx.unsafe(`${vectors.kind.pgvector}.vector`);
      await tx`INSERT INTO ${table} (index_id, ordinal, embedding)
        SELECT ${id}, o, e::${type}
        FROM unnest(${ordinals}::int[], ${batch.map(vectorText)}::text[]) AS r(o, e)`;
    }
  }
}

/**
 * Links a chat's document to the index of `link.key` in a transaction, and
 * removes the index it linked to before when no chat links to that any more;
 * false when there is no such index.
 */
async function linkIn(tx: Transaction, link: IndexLink): Promise<boolean> {
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
  return true;
}

/** Removes the indexes of `ids` that no chat links to, with their rows (by cascade). */
async function removeOrphans(tx: Transaction, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx`DELETE FROM rag_indexes i WHERE i.id = ANY(${[...new Set(ids)]}::bigint[])
    AND NOT EXISTS (SELECT 1 FROM rag_links l WHERE l.index_id = i.id)`;
}

/** Takes a lock named by text until the transaction ends; whoever takes it next waits. */
async function lock(tx: Transaction, name: string): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`;
}

function chunkOf(found: Found[]): (row: Postgres.Row) => StoredChunk {
  const keyOf = new Map(found.map((index) => [index.id, index.key]));
  return (row) => ({
    key: keyOf.get(String(row.index_id))!,
    ordinal: Number(row.ordinal),
    text: String(row.text),
    pageNumbers: (row.page_numbers as number[]).map(Number),
    numTokens: Number(row.num_tokens),
  });
}

function vectorTableName(dimension: number): string {
  return `rag_vectors_${dimension}`;
}

/** A vector as pgvector reads it: `[0.5,1]`. */
function vectorText(vector: Float32Array): string {
  return JSON.stringify(Array.from(vector));
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** The bytes of a vector's float32 values (in the machine's order, little-endian), in hex. */
function vectorHex(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
  let hex = "";
  for (const byte of bytes) hex += HEX[byte];
  return hex;
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
