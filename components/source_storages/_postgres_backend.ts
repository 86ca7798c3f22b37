/**
 * The indexes of the Postgres source storage in a PostgreSQL database: chunks,
 * the postings of svc's BM25 (the words and stems of `_bm25.ts`, counted per
 * chunk) and the chunks' vectors, in `rag_*` tables.
 *
 * A chat's chunks are ranked in memory (`_memory_search.ts`), as LibSQL and
 * LanceDB rank theirs: what search needs of an index (its words' postings and
 * the codes of its vectors) and its passages (texts and vectors) are read from
 * the database at the index's first search and kept, within budgets
 * (`_search_cache.ts`), since an index never changes; any number of processes
 * share the database, each keeping what its own chats search. The full-text
 * arm is svc's BM25 over svc's words and stems, as it was when PostgreSQL
 * computed it over the postings table; the vector arm ranks the codes'
 * candidates exactly by their stored vectors. PostgreSQL ranking them took 135
 * ms a question over 10,000 passages (with pgvector's HNSW index; 168 ms
 * without), where LibSQL searched in memory in 17 ms.
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
  keepPassages,
  keptOrRead,
  type KeptPassages,
  newPassages,
  passageAt,
  type PassagesIndex,
  passagesIndex,
  type StoredPassage,
  storedPassage,
  vectorAt,
} from "./_kept_passages.ts";
import { nearestExactly, type Place, searchMemory } from "./_memory_search.ts";
import type { WordsKept } from "./_proximity.ts";
import {
  DEFAULT_PASSAGE_MEMORY,
  DEFAULT_SEARCH_MEMORY,
  KeptLinks,
  SearchCache,
  SearchPlans,
} from "./_search_cache.ts";
import { copyIn, copyRows, type VectorKind, vectorOf } from "./_postgres_vectors.ts";
import { OWN_BM25, TermPostings } from "./_term_postings.ts";
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
// Indexes read from the database at a time, when a search first needs them.
const LOADED_INDEXES = 32;
// The most indexes whose ids are kept by key (some 100 bytes each).
const MAX_KNOWN_IDS = 100_000;

// Locks of transactions (pg_advisory_xact_lock), named by text.
const SCHEMA_LOCK = "svc rag schema";
const LINKS_LOCK = "svc rag links";
// The count of changes to the links and indexes (in rag_meta), moved on under LINKS_LOCK.
const LINKS_GENERATION = "links generation";

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

/** Options of {@linkcode PostgresBackend.open}. */
export interface PostgresBackendOptions {
  /**
   * The bytes of memory that searching may keep of the passages themselves
   * (texts, pages, tokens and vectors); the passages beyond it are read at
   * each question.
   * @default {DEFAULT_PASSAGE_MEMORY}
   */
  passageMemory?: number;
}

/** An index of the chat as a search finds it. */
interface Found {
  id: string;
  key: string;
}

/** What a search read of its indexes, kept for the next search of the same list of keys. */
interface SearchPlan {
  dimension: number;
  found: Found[];
  indexes: PassagesIndex[];
  kept: (KeptPassages | undefined)[];
}

/** An index's chunks as read for search, in the order of their ordinals. */
interface ReadIndex {
  id: string;
  passages: KeptPassages;
  vectors: readonly Float32Array[];
  /** Its postings as stored with it; none when they were not (or cannot be read). */
  terms?: TermPostings;
}

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
  // What search keeps of each index, by its id; the passages apart, so that
  // passages never push out what ranking needs.
  readonly #memory = new SearchCache<PassagesIndex>(
    DEFAULT_SEARCH_MEMORY,
    () => this.#plans.clear(),
  );
  readonly #passages: SearchCache<KeptPassages>;
  // The ids and dimensions of the indexes by key, as the latest links read or
  // search found them: a question finds its chat's indexes without a query.
  readonly #ids = new Map<string, { id: string; dimension: number }>();
  // The last searches' plans by their lists of keys, while nothing they hold changed.
  readonly #plans = new SearchPlans<SearchPlan>();
  // Each chat's links as last read, with the count of changes they were read at.
  readonly #links = new KeptLinks<IndexInfo>();

  private constructor(sql: Sql, pgvector: string | undefined, options: PostgresBackendOptions) {
    this.#sql = sql;
    this.#pgvector = pgvector;
    this.#passages = new SearchCache(
      options.passageMemory ?? DEFAULT_PASSAGE_MEMORY,
      () => this.#plans.clear(),
    );
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
      await tx`INSERT INTO rag_meta (name, value) VALUES (${LINKS_GENERATION}, '0')
        ON CONFLICT (name) DO NOTHING`;
    });
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
    const passages = newPassages(index, texts);
    const entry = await passagesIndex(passages, index.vectors);
    let written: string | undefined;
    try {
      written = await this.#sql.begin(async (tx) => {
        // Another process storing the same index waits here, then finds it.
        await lock(tx, `svc rag index ${index.key}`);
        const [existing] = await tx`SELECT id FROM rag_indexes WHERE key = ${index.key}`;
        const id = existing === undefined
          ? await writeIndex(tx, index, { texts, terms: entry.terms }, { table, kind })
          : undefined;
        if (!(await linkIn(tx, link))) throw new Error("the index was not stored");
        return id;
      });
    } catch (error) {
      entry.dropped?.();
      throw error;
    }
    if (written !== undefined && index.chunks.length > 0) {
      this.#memory.set(written, entry);
      this.#passages.set(written, passages);
    } else entry.dropped?.();
    // A plan of a list of keys that named this one before it was stored does not hold it.
    this.#plans.clear();
  }

  /**
   * A chat's links, read again only when a process changed some links or
   * indexes since (one small read of their count of changes rather than the
   * chat's rows: 1,000 of them took some milliseconds a question). The count
   * is read first, so that links read meanwhile are never kept as newer than
   * they are.
   */
  async links(chatId: string): Promise<Map<string, IndexInfo>> {
    const [generation] = await this.#sql`SELECT value FROM rag_meta
      WHERE name = ${LINKS_GENERATION}`;
    const state = generation === undefined ? undefined : String(generation.value);
    const held = state === undefined ? undefined : this.#links.get(chatId, state);
    if (held) return held;
    const rows = await this.#sql`SELECT l.document_id, i.id, i.key, i.content_hash, i.chunk_size,
        i.chunk_overlap, i.embedder, i.dimension
      FROM rag_links l JOIN rag_indexes i ON i.id = l.index_id WHERE l.chat_id = ${chatId}`;
    this.#learn(rows);
    const links = new Map(rows.map((row) => [String(row.document_id), indexInfoOf(row)]));
    if (state !== undefined) this.#links.set(chatId, state, links);
    return links;
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
    this.#plans.clear();
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
    this.#plans.clear();
  }

  async search(
    keys: readonly string[],
    query: SearchQuery,
  ): Promise<(StoredChunk & WordsKept)[][]> {
    const dimension = query.vector.length;
    if (keys.length === 0) return [[], []];
    // Made by the first index of its dimension: none yet, nothing to find.
    const kind = await this.#vectorKind(dimension);
    if (kind === undefined) return [[], []];
    const { found, indexes, kept } = await this.#searchPlan(keys, kind, dimension);
    if (found.length === 0) return [[], []];
    query.signal?.throwIfAborted();
    const { text, candidates } = await searchMemory(indexes, query);
    query.signal?.throwIfAborted();
    // The passages kept in memory are taken from there; the others are read.
    const read = await this.#passagesAt(
      [...text, ...candidates].filter((place) => !kept[place.index]).map((place) => ({
        name: placeName(place),
        id: found[place.index]!.id,
        ordinal: indexes[place.index]!.ordinals[place.chunk]!,
      })),
      kind,
      dimension,
    );
    const nearest = nearestExactly(
      candidates,
      (place) =>
        kept[place.index]
          ? vectorAt(kept[place.index]!, place.chunk)
          : read.get(placeName(place))?.vector,
      query.vector,
      // Ties in the order of the indexes, then of their chunks.
      { limit: query.limit, tie: (a, b) => a.index - b.index || a.chunk - b.chunk },
    );
    const chunkAt = (place: Place): (StoredChunk & WordsKept)[] => {
      const key = found[place.index]!.key;
      const words = indexes[place.index]!.terms.wordsOf(place.chunk);
      const passage = kept[place.index] && passageAt(kept[place.index]!, place.chunk);
      if (passage) return [{ key, ...passage, words }];
      const row = read.get(placeName(place));
      // A chunk of an index removed meanwhile (its last chat deleted) is left out.
      if (!row) return [];
      const { ordinal, text, pages, numTokens } = row;
      return [{ key, ordinal, text, pageNumbers: JSON.parse(pages), numTokens, words }];
    };
    return [text.flatMap(chunkAt), nearest.flatMap(chunkAt)];
  }

  async chunks(key: string): Promise<StoredChunk[]> {
    const rows = await this.#sql`SELECT c.index_id, c.ordinal, c.text, c.page_numbers, c.num_tokens
      FROM rag_chunks c JOIN rag_indexes i ON i.id = c.index_id
      WHERE i.key = ${key} ORDER BY c.ordinal`;
    return rows.map((row) => ({
      key,
      ordinal: Number(row.ordinal),
      text: String(row.text),
      pageNumbers: (row.page_numbers as number[]).map(Number),
      numTokens: Number(row.num_tokens),
    }));
  }

  /**
   * The indexes of `keys` that hold vectors of `dimension`, in the order of
   * `keys` (which breaks ties of both rankings), what search keeps of each and
   * the passages kept. An earlier search's of the same list of keys (a chat
   * asked again gives the same) while the caches kept and dropped nothing and
   * no index changed its id: its entries are then only marked as used.
   */
  async #searchPlan(
    keys: readonly string[],
    kind: VectorKind,
    dimension: number,
  ): Promise<SearchPlan> {
    const planned = this.#plans.get(keys);
    if (planned?.dimension === dimension) {
      for (const { id } of planned.found) {
        this.#memory.get(id);
        this.#passages.get(id);
      }
      return planned;
    }
    const unknown = keys.filter((key) => !this.#ids.has(key));
    if (unknown.length > 0) {
      this.#learn(
        await this.#sql`SELECT id, key, dimension FROM rag_indexes
        WHERE key = ANY(${unknown}::text[])`,
      );
    }
    const found = keys.flatMap((key) => {
      const known = this.#ids.get(key);
      return known?.dimension === dimension ? [{ key, id: known.id }] : [];
    });
    const indexes = await this.#searchable(found, kind, dimension);
    const kept = await keptOrRead(
      this.#passages,
      found.map(({ id }) => ({ id, cacheKey: id })),
      indexes.reduce((sum, index) => sum + index.passageBytes, 0),
      (missing) => this.#read(missing, kind, dimension),
    );
    return this.#plans.keep(keys, { dimension, found, indexes, kept });
  }

  /**
   * Keeps the ids of the indexes of `rows`. An index not known before (stored
   * by another process since) or whose id changed (removed and made anew)
   * drops the plans, which do not hold it.
   */
  #learn(rows: readonly Postgres.Row[]): void {
    if (this.#ids.size > MAX_KNOWN_IDS) this.#ids.clear();
    for (const row of rows) {
      const key = String(row.key);
      const id = String(row.id);
      if (this.#ids.get(key)?.id === id) continue;
      this.#plans.clear();
      this.#ids.set(key, { id, dimension: Number(row.dimension) });
    }
  }

  /**
   * What search keeps of each index found, from memory, the indexes not there
   * yet read from the database (and kept, with their passages, within the
   * budgets).
   */
  async #searchable(
    found: Found[],
    kind: VectorKind,
    dimension: number,
  ): Promise<PassagesIndex[]> {
    const held = new Map<string, PassagesIndex>();
    const missing = [...new Set(found.map(({ id }) => id))].filter((id) => {
      const entry = this.#memory.get(id);
      if (entry) held.set(id, entry);
      return !entry;
    });
    const built: { id: string; data: Uint8Array }[] = [];
    for await (const read of this.#read(missing, kind, dimension)) {
      const entry = await passagesIndex(read.passages, read.vectors, { terms: read.terms });
      held.set(read.id, entry);
      if (read.passages.ordinals.length > 0) {
        this.#memory.set(read.id, entry);
        this.#passages.set(read.id, read.passages);
        if (!read.terms) built.push({ id: read.id, data: entry.terms.toBytes() });
      }
    }
    // Postings built here are kept for the next start, while their index is there; a database
    // that refuses the write leaves them to be built again then.
    for (const { id, data } of built) {
      await this.#sql`INSERT INTO rag_index_postings (index_id, data)
        SELECT ${id}, ${data} WHERE EXISTS (SELECT 1 FROM rag_indexes WHERE id = ${id})
        ON CONFLICT (index_id) DO NOTHING`.catch(() => {});
    }
    return found.map(({ id }) => held.get(id)!);
  }

  /** The chunks and vectors of the indexes `ids`, read some indexes at a time; each id once. */
  async *#read(ids: string[], kind: VectorKind, dimension: number): AsyncGenerator<ReadIndex> {
    const table = this.#sql(vectorTableName(dimension));
    for (let start = 0; start < ids.length; start += LOADED_INDEXES) {
      const group = ids.slice(start, start + LOADED_INDEXES);
      const rows = await this.#sql`SELECT c.index_id, c.ordinal, c.text, ${this.#pagesJson()},
          c.num_tokens, ${this.#embedding(kind)} AS embedding
        FROM rag_chunks c JOIN ${table} v USING (index_id, ordinal)
        WHERE c.index_id = ANY(${group}::bigint[]) ORDER BY c.index_id, c.ordinal`;
      const postings = await this.#sql`SELECT index_id, data FROM rag_index_postings
        WHERE index_id = ANY(${group}::bigint[])`;
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
      for (const [id, stored] of byIndex) {
        yield {
          id,
          passages: keepPassages(stored, dimension),
          vectors: stored.map((passage) => passage.vector!),
          terms: storedTerms(termsOf.get(id), stored.length),
        };
      }
    }
  }

  /** The passages, with their vectors, of the chunks at `places`, by each place's name. */
  async #passagesAt(
    places: readonly { name: string; id: string; ordinal: number }[],
    kind: VectorKind,
    dimension: number,
  ): Promise<Map<string, StoredPassage>> {
    const passages = new Map<string, StoredPassage>();
    if (places.length === 0) return passages;
    const rows = await this
      .#sql`SELECT n.name, c.ordinal, c.text, ${this.#pagesJson()}, c.num_tokens,
        ${this.#embedding(kind)} AS embedding
      FROM unnest(${places.map((place) => place.id)}::bigint[],
        ${places.map((place) => place.ordinal)}::int[],
        ${places.map((place) => place.name)}::text[]) AS n(index_id, ordinal, name)
      JOIN rag_chunks c USING (index_id, ordinal)
      JOIN ${this.#sql(vectorTableName(dimension))} v USING (index_id, ordinal)`;
    for (const row of rows) {
      const vector = vectorOf(row.embedding as Uint8Array, kind, dimension);
      passages.set(String(row.name), storedPassage(row, vector));
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

/** Writes a new index: its row, chunks, postings and vectors; gives its id. */
async function writeIndex(
  tx: Transaction,
  index: NewIndex,
  { texts, terms }: { texts: readonly string[]; terms: TermPostings },
  vectors: { table: string; kind: VectorKind },
): Promise<string> {
  const [created] = await tx`INSERT INTO rag_indexes (key, content_hash, chunk_size, chunk_overlap,
      embedder, dimension, chunk_count, term_count)
    VALUES (${index.key}, ${index.contentHash}, ${index.chunkSize}, ${index.chunkOverlap},
      ${index.embedder}, ${index.dimension}, ${index.chunks.length}, ${terms.totalLength})
    RETURNING id`;
  const id = String(created!.id);
  for (let start = 0; start < index.chunks.length; start += CHUNK_ROWS) {
    const rows = index.chunks.slice(start, start + CHUNK_ROWS).map((chunk, i) => ({
      ordinal: start + i,
      text: texts[start + i],
      page_numbers: chunk.pageNumbers,
      num_tokens: chunk.numTokens,
      num_terms: terms.lengths[start + i],
    }));
    await tx`INSERT INTO rag_chunks (index_id, ordinal, text, page_numbers, num_tokens, num_terms)
      SELECT ${id}, * FROM json_to_recordset(${JSON.stringify(rows)}::text::json)
        AS r(ordinal INTEGER, text TEXT, page_numbers INTEGER[], num_tokens INTEGER,
          num_terms INTEGER)`;
  }
  await tx`INSERT INTO rag_index_postings (index_id, data) VALUES (${id}, ${terms.toBytes()})`;
  if (index.vectors.length > 0) {
    await copyIn(
      tx`COPY ${tx(vectors.table)} (index_id, ordinal, embedding) FROM STDIN (FORMAT binary)`,
      copyRows(BigInt(id), index.vectors, vectors.kind),
    );
  }
  return id;
}

/** Postings stored with an index of `size` chunks, when they can be read as such. */
function storedTerms(bytes: Uint8Array | undefined, size: number): TermPostings | undefined {
  if (bytes === undefined) return undefined;
  try {
    const terms = TermPostings.fromBytes(bytes, OWN_BM25);
    return terms.size === size ? terms : undefined;
  } catch {
    // Bytes of another format: built again from the texts.
    return undefined;
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
  await nextLinksGeneration(tx);
  return true;
}

/** Counts a change to the links or indexes, which every process's kept links then give way to. */
async function nextLinksGeneration(tx: Transaction): Promise<void> {
  await tx`UPDATE rag_meta SET value = (value::bigint + 1)::text WHERE name = ${LINKS_GENERATION}`;
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

/** The name of a chunk of the indexes searched, for the passages read of it. */
function placeName({ index, chunk }: Place): string {
  return `${index}/${chunk}`;
}

function vectorTableName(dimension: number): string {
  return `rag_vectors_${dimension}`;
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
