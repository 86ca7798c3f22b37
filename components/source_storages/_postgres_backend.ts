/**
 * The indexes of the Postgres source storage in a PostgreSQL database: chunks,
 * their postings and their vectors, in `rag_*` tables. Retrieval ranks a
 * chat's chunks in memory (`retrieval/index_search.ts`), with svc's own words
 * and stems, as PostgreSQL ranked them before over a postings table, many
 * times slower; any number of processes share the database, each keeping in
 * memory what its own chats search.
 *
 * An index's postings are kept as the bytes of `TermPostings.toBytes()`
 * (`rag_index_postings`), written with it, so that its first search after a
 * start reads them rather than building them from the texts; an index stored
 * without them has them built at its first search, and kept then. Vectors:
 * with the `vector` extension (pgvector) in the database, a table per
 * dimension of `vector` columns; without it, the bytes of their float32
 * values; written by a binary COPY and read in those forms
 * (`_postgres_vectors.ts`).
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
import {
  type ChunkAt,
  type FoundIndex,
  IndexSearch,
  type IndexSearchOptions,
  KnownIndexes,
  type ReadIndex,
  type StoredPassage,
  storedPassage,
  type WordsKept,
} from "../retrieval/mod.ts";
import {
  createTables,
  linkIn,
  LINKS_GENERATION,
  LINKS_LOCK,
  lock,
  nextLinksGeneration,
  quoteIdentifier,
  removeOrphans,
  SCHEMA_LOCK,
  vectorTableName,
  writeIndex,
} from "./_postgres_tables.ts";
import { type VectorKind, vectorOf } from "./_postgres_vectors.ts";
import {
  checkedDimension,
  type IndexBackend,
  type IndexInfo,
  indexInfoOf,
  type IndexLink,
  KeptLinks,
  type NewIndex,
  type SearchQuery,
  type StoredChunk,
  storedChunk,
} from "../indexing/mod.ts";

type Sql = Postgres.Sql;
// Indexes read from the database at a time, when a search first needs them.
const READ_AT_ONCE = 32;

/** Options of {@linkcode PostgresBackend.open}: the memory that search keeps of the passages. */
export type PostgresBackendOptions = Pick<IndexSearchOptions<string, undefined>, "passageMemory">;

/**
 * The Postgres storage's indexes in a PostgreSQL database. Tables are named
 * `rag_*`, so the database may hold other tables too (svc's own). Vectors of
 * each dimension have their own table, `rag_vectors_<dimension>`.
 */
export class PostgresBackend implements IndexBackend {
  readonly #sql: Sql;
  // The schema of the vector extension, when the database has it.
  readonly #pgvector: string | undefined;
  readonly #vectorTables = new Map<number, VectorKind>();
  // What search keeps of each index, by its id.
  readonly #search: IndexSearch<string>;
  // The ids and dimensions of the indexes by key, as the latest links read or
  // search found them. An index not known before (stored by another process
  // since) or whose id changed (removed and made anew) drops the plans, which
  // do not hold it.
  readonly #ids = new KnownIndexes<{ key: string; id: string; dimension: number }>({
    same: (a, b) => a.id === b.id,
    changed: () => this.#search.forget(),
  });
  // Each chat's links as last read, with the count of changes they were read at.
  readonly #links = new KeptLinks<IndexInfo>();

  private constructor(sql: Sql, pgvector: string | undefined, options: PostgresBackendOptions) {
    this.#sql = sql;
    this.#pgvector = pgvector;
    this.#search = new IndexSearch({
      fullText: "svc",
      passageMemory: options.passageMemory,
      readAtOnce: READ_AT_ONCE,
      reads: {
        indexes: (ids, { dimension, postings }) => this.#read(ids, dimension, postings),
        passages: (chunks, dimension) => this.#passagesAt(chunks, dimension),
        keepPostings: (built) => this.#keepPostings(built),
      },
    });
  }

  /**
   * Creates the tables the database lacks, one process at a time, and finds
   * out whether it has pgvector.
   *
   * @throws {Error} when the tables are of another version of svc
   */
  static async open(sql: Sql, options: PostgresBackendOptions = {}): Promise<PostgresBackend> {
    await createTables(sql);
    const [extension] = await sql`SELECT n.nspname AS schema FROM pg_extension e
      JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`;
    return new PostgresBackend(sql, extension?.schema, options);
  }

  /** Whether the database has pgvector, whose `vector` columns then keep the vectors. */
  get pgvector(): boolean {
    return this.#pgvector !== undefined;
  }

  link(link: IndexLink): Promise<boolean> {
    return this.#sql.begin((tx) => linkIn(tx, link));
  }

  async add(index: NewIndex, link: IndexLink): Promise<void> {
    const table = await this.#vectorTable(index.dimension);
    const kind = this.#vectorTables.get(index.dimension)!;
    // PostgreSQL's text holds no NUL character.
    const texts = index.chunks.map((chunk) => chunk.text.replaceAll("\u0000", ""));
    // Ready for the chat's first question, which would read it all back otherwise.
    using prepared = await this.#search.prepare(index, { texts, extra: undefined });
    const written = await this.#sql.begin(async (tx) => {
      // Another process storing the same index waits here, then finds it.
      await lock(tx, `svc rag index ${index.key}`);
      const [existing] = await tx`SELECT id FROM rag_indexes WHERE key = ${index.key}`;
      const id = existing === undefined
        ? await writeIndex(tx, index, { texts, prepared }, { table, kind })
        : undefined;
      if (!(await linkIn(tx, link))) throw new Error("the index was not stored");
      return id;
    });
    if (written !== undefined) prepared.keep(written);
    // A plan of a list of keys that named this one before it was stored does not hold it.
    this.#search.forget();
  }

  /**
   * A chat's links, read again only when a process changed some links or
   * indexes since (one small read of their count of changes rather than the
   * chat's rows, which a chat of many documents felt at every question).
   */
  async links(chatId: string): Promise<Map<string, IndexInfo>> {
    const [generation] = await this.#sql`SELECT value FROM rag_meta
      WHERE name = ${LINKS_GENERATION}`;
    const state = generation === undefined ? undefined : String(generation.value);
    return await this.#links.read(chatId, state, async () => {
      const rows = await this.#sql`SELECT l.document_id, i.id, i.key, i.content_hash,
          i.chunk_size, i.chunk_overlap, i.embedder, i.dimension
        FROM rag_links l JOIN rag_indexes i ON i.id = l.index_id WHERE l.chat_id = ${chatId}`;
      for (const row of rows) this.#ids.learn(String(row.key), known(row));
      return new Map(rows.map((row) => [String(row.document_id), indexInfoOf(row)]));
    });
  }

  async unlink(chatId: string): Promise<void> {
    await this.#sql.begin(async (tx) => {
      await lock(tx, LINKS_LOCK);
      const unlinked = await tx`DELETE FROM rag_links WHERE chat_id = ${chatId} RETURNING index_id`;
      await removeOrphans(tx, unlinked.map((row) => String(row.index_id)));
      await nextLinksGeneration(tx);
    });
    // Some indexes may be gone: their ids are found again when asked for.
    this.#ids.clear();
    this.#search.forget();
  }

  async unlinkDocument(chatId: string, documentId: string): Promise<void> {
    await this.#sql.begin(async (tx) => {
      await lock(tx, LINKS_LOCK);
      const unlinked = await tx`DELETE FROM rag_links
        WHERE chat_id = ${chatId} AND document_id = ${documentId} RETURNING index_id`;
      await removeOrphans(tx, unlinked.map((row) => String(row.index_id)));
      await nextLinksGeneration(tx);
    });
    this.#ids.clear();
    this.#search.forget();
  }

  async search(
    keys: readonly string[],
    query: SearchQuery,
  ): Promise<(StoredChunk & WordsKept)[][]> {
    const dimension = query.vector.length;
    if (keys.length === 0) return [[], []];
    // Made by the first index of its dimension: none yet, nothing to find.
    if (await this.#vectorKind(dimension) === undefined) return [[], []];
    return await this.#search.search(keys, query, { find: () => this.#found(keys, dimension) });
  }

  async chunks(key: string): Promise<StoredChunk[]> {
    const rows = await this.#sql`SELECT c.index_id, c.ordinal, c.text, c.page_numbers, c.num_tokens
      FROM rag_chunks c JOIN rag_indexes i ON i.id = c.index_id
      WHERE i.key = ${key} ORDER BY c.ordinal`;
    return rows.map((row) => storedChunk(key, row));
  }

  /**
   * The indexes of `keys` that hold vectors of `dimension`, in the order of
   * `keys` (which breaks ties of both rankings), their ids read when not known.
   */
  async #found(keys: readonly string[], dimension: number): Promise<FoundIndex<string>[]> {
    const indexes = await this.#ids.of(
      keys,
      async (unknown) =>
        (await this.#sql`SELECT id, key, dimension FROM rag_indexes
        WHERE key = ANY(${unknown}::text[])`).map((row) => [String(row.key), known(row)]),
    );
    return indexes.filter((index) => index.dimension === dimension)
      .map(({ key, id }) => ({ key, id, cacheKey: id }));
  }

  /**
   * Keeps postings that search built, while their index is there; a database that refuses the
   * write leaves them to be built again at the next start.
   */
  async #keepPostings(built: readonly { id: string; data: Uint8Array }[]): Promise<void> {
    for (const { id, data } of built) {
      await this.#sql`INSERT INTO rag_index_postings (index_id, data)
        SELECT ${id}, ${data} WHERE EXISTS (SELECT 1 FROM rag_indexes WHERE id = ${id})
        ON CONFLICT (index_id) DO NOTHING`.catch(() => {});
    }
  }

  /** The chunks and vectors of the indexes `group`, with the postings stored with each when asked for. */
  async *#read(
    group: readonly string[],
    dimension: number,
    withPostings: boolean,
  ): AsyncGenerator<ReadIndex<string, undefined>> {
    const kind = this.#vectorTables.get(dimension)!;
    const table = this.#sql(vectorTableName(dimension));
    const rows = await this.#sql`SELECT c.index_id, c.ordinal, c.text, ${this.#pagesJson()},
        c.num_tokens, ${this.#embedding(kind)} AS embedding
      FROM rag_chunks c JOIN ${table} v USING (index_id, ordinal)
      WHERE c.index_id = ANY(${group}::bigint[]) ORDER BY c.index_id, c.ordinal`;
    const postings = withPostings
      ? await this.#sql`SELECT index_id, data FROM rag_index_postings
        WHERE index_id = ANY(${group}::bigint[])`
      : [];
    // Copied out of the client's Buffer, whose slices share its memory.
    const termsOf = new Map(
      postings.map((row) => [String(row.index_id), new Uint8Array(row.data as Uint8Array)]),
    );
    const byIndex = new Map(group.map((id) => [id, [] as StoredPassage[]]));
    for (const row of rows) {
      byIndex.get(String(row.index_id))?.push(
        storedPassage(row, vectorOf(row.embedding as Uint8Array, kind, dimension)),
      );
    }
    for (const [id, passages] of byIndex) {
      yield { id, passages, postings: termsOf.get(id), extra: undefined };
    }
  }

  /** The passages, with their vectors, of chunks that search does not keep. */
  async #passagesAt(
    chunks: readonly ChunkAt<string, undefined>[],
    dimension: number,
  ): Promise<(StoredPassage | undefined)[]> {
    const kind = this.#vectorTables.get(dimension)!;
    const rows = await this
      .#sql`SELECT n.name, c.ordinal, c.text, ${this.#pagesJson()}, c.num_tokens,
        ${this.#embedding(kind)} AS embedding
      FROM unnest(${chunks.map((chunk) => chunk.id)}::bigint[],
        ${chunks.map((chunk) => chunk.ordinal)}::int[],
        ${chunks.map((_, i) => i)}::int[]) AS n(index_id, ordinal, name)
      JOIN rag_chunks c USING (index_id, ordinal)
      JOIN ${this.#sql(vectorTableName(dimension))} v USING (index_id, ordinal)`;
    const passages: (StoredPassage | undefined)[] = chunks.map(() => undefined);
    for (const row of rows) {
      const vector = vectorOf(row.embedding as Uint8Array, kind, dimension);
      passages[Number(row.name)] = storedPassage(row, vector);
    }
    return passages;
  }

  /** A chunk's pages as a JSON array, as kept passages hold them. */
  #pagesJson(): Postgres.PendingQuery<Postgres.Row[]> {
    return this.#sql`array_to_json(c.page_numbers)::text AS page_numbers`;
  }

  /** A vector's column as bytes: pgvector's binary form, else the bytes kept. */
  #embedding(kind: VectorKind): Postgres.PendingQuery<Postgres.Row[]> {
    return kind.pgvector === undefined
      ? this.#sql`v.embedding`
      : this.#sql.unsafe(`${kind.pgvector}.vector_send(v.embedding)`);
  }

  /** The table of vectors of a dimension, created when missing. */
  async #vectorTable(dimension: number): Promise<string> {
    const table = vectorTableName(checkedDimension(dimension));
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

/** An index's key, id and dimension, as a row of `rag_indexes` gives them. */
function known(row: Postgres.Row): { key: string; id: string; dimension: number } {
  return { key: String(row.key), id: String(row.id), dimension: Number(row.dimension) };
}
