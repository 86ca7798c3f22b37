/**
 * The indexes of the LibSQL source storage in a libSQL database: chunks, and
 * their vectors in `F32_BLOB` columns.
 *
 * A search ranks the chat's chunks, and only those, in memory: what it needs
 * of each index is read once (the chunks' texts and vectors) and kept, within
 * a budget (`searchMemory`), as compact postings and 8-bit vector codes
 * (`_term_postings.ts`, `_vector_codes.ts`); an index added by this process is
 * kept from the start.
 * - The full-text arm is FTS5's BM25 with FTS5's tokenizer, computed over the
 *   chat's chunks alone: the chat's own term statistics, so another user's
 *   documents change nothing of its ranking, and a cost that grows with the
 *   chat, not the database. svc 0.3.0's FTS5 table over the whole database
 *   read every chunk holding a query's word, anyone's, and took 500 ms for a
 *   chat of 100,000 chunks.
 * - The vector arm scans the codes on the query's heaviest dimensions, then
 *   ranks its best candidates (twice the chunks it gives, as many in a chat
 *   of 10,000 chunks or more) exactly by their stored vectors, as
 *   `vector_distance_cos` would, ties to the lower id.
 *   Not the `libsql_vector_idx` ANN index: it searches the whole database and
 *   cannot keep to a chat's documents first (a chat owning 10% of 10,000
 *   vectors got a recall of 0.08 of its top 10 from `vector_top_k`), and its
 *   graph made inserts 100 times slower.
 * `bench/retrieval_bench.ts` measures both arms against a bare FTS5 query and
 * an exact scan of the same chunks.
 * @module
 */
import type { Client, InStatement, InValue, ResultSet } from "@libsql/client";
import { Turns } from "../core/turns.ts";
import { reclaimSpace } from "../sqlite_space.ts";
import { abandoned, newBuilder, runBuild } from "./_builders.ts";
import {
  type MemoryIndex,
  memoryIndex,
  nearestExactly,
  type Place,
  searchMemory,
} from "./_memory_search.ts";
import {
  keepPassages,
  keptOrRead,
  type KeptPassages,
  passageAt,
  storedPassage,
  vectorAt,
} from "./_kept_passages.ts";
import type { WordsKept } from "./_proximity.ts";
import {
  DEFAULT_PASSAGE_MEMORY,
  DEFAULT_SEARCH_MEMORY,
  KeptLinks,
  SearchCache,
  SearchPlans,
} from "./_search_cache.ts";
import { FTS5, TermPostings } from "./_term_postings.ts";
import {
  type IndexBackend,
  type IndexInfo,
  indexInfoOf,
  type IndexLink,
  type NewIndex,
  type SearchQuery,
  type StoredChunk,
} from "../indexing/mod.ts";

// Rows per write; between them other requests may get their turn (see `Turns`).
const BATCH_ROWS = 200;
const SCHEMA_VERSION = "2";
// Version 1 kept an FTS5 table of the chunks' text, filled by triggers, which
// search stopped reading when it moved into memory: it was three fifths of
// the time of storing a chunk. Version 2 drops it; an svc of version 1
// refuses the database, naming both versions, rather than search without it.
const TO_VERSION_2 = [
  `DROP TRIGGER IF EXISTS rag_chunks_insert`,
  `DROP TRIGGER IF EXISTS rag_chunks_delete`,
  `DROP TABLE IF EXISTS rag_chunks_fts`,
  `UPDATE rag_meta SET value = '2' WHERE name = 'schema' AND value = '1'`,
];
// Indexes read from the database at a time, when a search first needs them.
const LOADED_INDEXES = 16;
// The count of writes to the tables, which a search checks the rows it keeps against.
const START_GENERATION = `INSERT OR IGNORE INTO rag_meta (name, value) VALUES ('generation', '0')`;
const NEXT_GENERATION =
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
  /**
   * The bytes of memory that searching may keep of the indexes (postings and
   * vector codes, about 2 kB a chunk); what a chat needs beyond it is read
   * again at each search.
   * @default {DEFAULT_SEARCH_MEMORY}
   */
  searchMemory?: number;
  /**
   * The bytes of memory that searching may keep of the passages themselves
   * (texts, pages, tokens and vectors, about 4.5 kB a chunk), so that a
   * question reads nothing from the database; the passages beyond it are read
   * at each question.
   * @default {DEFAULT_PASSAGE_MEMORY}
   */
  passageMemory?: number;
  /**
   * Whether a chat's links and its indexes' ids are kept between questions
   * while nothing wrote to the database: for a file, where checking is
   * cheaper than reading them. False for a database on a server, where it is
   * not: they are read at every question.
   * @default {true}
   */
  keepLinks?: boolean;
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
  readonly #memory: SearchCache<Searchable>;
  // Kept apart, so that passages never push out what ranking needs.
  readonly #passages: SearchCache<KeptPassages>;
  readonly #keepsRows: boolean;
  // Each chat's links, and each index's id and time by key, as last read, with the state read
  // before them.
  readonly #links = new KeptLinks<IndexInfo>();
  #indexes: { state: string; byKey: Map<string, StoredIndex> } = { state: "", byKey: new Map() };
  // The last searches' plans by their lists of keys, while the caches keep and drop nothing.
  readonly #plans = new SearchPlans<SearchPlan>();

  private constructor(client: Client, options: LibSQLBackendOptions) {
    this.#client = client;
    this.#reclaimSpace = options.reclaimSpace ?? false;
    this.#keepsRows = options.keepLinks ?? true;
    const replan = () => this.#plans.clear();
    this.#memory = new SearchCache(options.searchMemory ?? DEFAULT_SEARCH_MEMORY, replan);
    this.#passages = new SearchCache(options.passageMemory ?? DEFAULT_PASSAGE_MEMORY, replan);
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
    } else if (found !== "1" && found !== SCHEMA_VERSION) {
      throw new Error(
        `its rag_* tables have schema version ${found}, and this svc knows ${SCHEMA_VERSION}`,
      );
    }
    // At every start: an svc of version 1 that opened the database since made the table again
    // before it refused the database.
    await client.batch([...TO_VERSION_2, START_GENERATION], "write");
    const backend = new LibSQLBackend(client, options);
    await backend.#sweep();
    return backend;
  }

  async link(link: IndexLink): Promise<boolean> {
    const earlier = await this.#linkedIndex(link);
    const [linked] = await this.#write([
      linkStatement(link),
      ...earlier ? await this.#removeIndex(earlier.id, earlier.dimension, "orphan") : [],
    ]);
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
    const [created] = await this.#write([
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
    ]);
    const id = Number(created!.rows[0]!.id);
    const ids: number[] = [];
    // Other requests get their turn between the writes and the building of a large document.
    const turns = new Turns();
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
        const results = await this.#write(statements);
        for (let i = 0; i < end - start; i++) ids.push(Number(results[2 * i]!.lastInsertRowid));
        await turns.maybe();
      }
      // Ready for the chat's first question, which would read it all back otherwise, and its
      // postings stored with it, for the first question after a start.
      const texts = index.chunks.map((chunk) => chunk.text);
      const kept = keepPassages(
        index.chunks.map((chunk, ordinal) => ({
          ...chunk,
          ordinal,
          pages: JSON.stringify(chunk.pageNumbers),
          vector: index.vectors[ordinal],
        })),
        index.dimension,
      );
      const entry = await searchable(ids, texts, index.vectors, index.dimension, kept.bytes);
      await turns.maybe();
      // Complete: give it its key, unless another process stored the same
      // key meanwhile; link to whichever has it, and drop ours if it lost.
      const earlier = await this.#linkedIndex(link);
      const [completed] = await this.#write([
        {
          sql: `UPDATE rag_indexes SET key = pending_key WHERE id = ?
            AND NOT EXISTS (SELECT 1 FROM rag_indexes WHERE key = ?)`,
          args: [id, index.key],
        },
        { sql: `DELETE FROM rag_builds WHERE index_id = ?`, args: [id] },
        postingsStatement(id, now, entry.terms),
        linkStatement(link),
        ...await this.#removeIndex(id, index.dimension, "abandoned"),
        ...earlier ? await this.#removeIndex(earlier.id, earlier.dimension, "orphan") : [],
      ]);
      if (completed!.rowsAffected > 0 && ids.every(Number.isInteger)) {
        this.#memory.set(cacheKey(now, id, index.dimension), entry);
        this.#passages.set(cacheKey(now, id, index.dimension), kept);
      }
    } catch (error) {
      // When this fails too (a full disk), the rows go at the next sweep.
      await this.#write(await this.#removeIndex(id, index.dimension, "abandoned"))
        .catch(() => {});
      throw error;
    }
  }

  async links(chatId: string): Promise<Map<string, IndexInfo>> {
    const state = await this.#state();
    const held = state === undefined ? undefined : this.#links.get(chatId, state);
    if (held) return held;
    const links = await this.#readLinks(chatId);
    if (state !== undefined) this.#links.set(chatId, state, links);
    return links;
  }

  async #readLinks(chatId: string): Promise<Map<string, IndexInfo>> {
    const rows = await this.#jsonRows({
      sql: `SELECT json_group_array(json_object('document_id', l.document_id, 'key', i.key,
          'content_hash', i.content_hash, 'chunk_size', i.chunk_size,
          'chunk_overlap', i.chunk_overlap, 'embedder', i.embedder, 'dimension', i.dimension))
        FROM rag_links l JOIN rag_indexes i ON i.id = l.index_id WHERE l.chat_id = ?`,
      args: [chatId],
    });
    return new Map(rows.map((row) => [String(row.document_id), indexInfoOf(row)]));
  }

  /**
   * The rows of a query that gives them as one JSON array: the client makes
   * an object with a getter per column of each row it reads, which took
   * about 10 ms a question for the 2,000 rows of a chat of 1,000 documents.
   */
  async #jsonRows(statement: InStatement): Promise<Record<string, unknown>[]> {
    const { rows } = await this.#client.execute(statement);
    return JSON.parse(String(rows[0]?.[0] ?? "[]"));
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
    await this.#write([
      { sql: `DELETE FROM rag_links WHERE chat_id = ?`, args: [chatId] },
      ...removals.flat(),
    ]);
    await this.#sweep({ reclaim: linked.rows.length > 0 });
  }

  async unlinkDocument(chatId: string, documentId: string): Promise<void> {
    const earlier = await this.#linkedIndex({ chatId, documentId });
    if (!earlier) return;
    await this.#write([
      {
        sql: `DELETE FROM rag_links WHERE chat_id = ? AND document_id = ?`,
        args: [chatId, documentId],
      },
      ...await this.#removeIndex(earlier.id, earlier.dimension, "orphan"),
    ]);
  }

  async search(
    keys: readonly string[],
    query: SearchQuery,
  ): Promise<(StoredChunk & WordsKept)[][]> {
    if (keys.length === 0) return [[], []];
    const plan = await this.#searchPlan(keys, query.vector.length);
    if (!plan) return [[], []];
    const { indexes, kept, vectors, keyOf } = plan;
    query.signal?.throwIfAborted();
    const { text, candidates } = await searchMemory(indexes, query);
    const idOf = ({ index, chunk }: Place) => indexes[index]!.ids[chunk]!;
    const placeOf = new Map([...text, ...candidates].map((place) => [idOf(place), place]));
    const textIds = text.map(idOf);
    const vectorIds = vectors ? await this.#nearest(candidates, query, indexes, kept) : [];

    // The passages kept in memory are taken from there; the others are read.
    const chunks = new Map<number, StoredChunk & WordsKept>();
    const unread: number[] = [];
    for (const id of new Set([...textIds, ...vectorIds])) {
      const { index, chunk } = placeOf.get(id)!;
      const passage = kept[index] && passageAt(kept[index], chunk);
      if (passage) {
        const words = indexes[index]!.terms.wordsOf(chunk);
        chunks.set(id, { key: plan.keys[index]!, ...passage, words });
      } else unread.push(id);
    }
    // The ids as one argument and the rows as one JSON array: 120 passages
    // read in 0.7 ms rather than 1.5 as a row object each and an argument an id.
    const rows = unread.length === 0 ? [] : await this.#jsonRows({
      sql: `SELECT json_group_array(json_object('id', id, 'index_id', index_id,
          'ordinal', ordinal, 'text', text, 'page_numbers', page_numbers, 'num_tokens', num_tokens))
        FROM rag_chunks WHERE id IN (SELECT value FROM json_each(?))`,
      args: [JSON.stringify(unread)],
    });
    for (const row of rows) {
      const id = Number(row.id);
      const { index, chunk } = placeOf.get(id)!;
      chunks.set(id, {
        key: keyOf.get(Number(row.index_id))!,
        ordinal: Number(row.ordinal),
        text: String(row.text),
        pageNumbers: JSON.parse(String(row.page_numbers)),
        numTokens: Number(row.num_tokens),
        words: indexes[index]!.terms.wordsOf(chunk),
      });
    }
    // A chunk of an index removed meanwhile (its last chat deleted) is left out.
    const chunksOf = (ids: number[]) => ids.flatMap((id) => chunks.get(id) ?? []);
    return [chunksOf(textIds), chunksOf(vectorIds)];
  }

  /**
   * What a search of `keys` reads: their indexes, in the order of their
   * chunks' ids (the order FTS5 broke ties in), and the passages kept of each.
   * An earlier search's of the same list of keys (a chat asked again gives the
   * same) while nothing was written to the database since and its caches kept
   * and dropped nothing: its entries are then only marked as used, as reading
   * them would mark them. Undefined when no index is stored.
   */
  async #searchPlan(keys: readonly string[], dimension: number): Promise<SearchPlan | undefined> {
    const state = await this.#state();
    const planned = this.#plans.get(keys);
    if (planned?.dimension === dimension && state !== undefined && planned.state === state) {
      for (const key of planned.cacheKeys) {
        this.#memory.get(key);
        this.#passages.get(key);
      }
      return planned;
    }
    const stored = await this.#storedIndexes(keys, state);
    if (stored.length === 0) return undefined;
    const vectors = await this.#hasVectors(dimension);
    const searchables = await this.#searchable(stored, dimension, vectors);
    // Each first id read once: read at each comparison, the sort took 0.5 ms over 1,000 indexes.
    const firstIds = Float64Array.from(searchables, (index) => index.ids[0] ?? 0);
    const order = [...stored.keys()].sort((a, b) => firstIds[a]! - firstIds[b]!);
    const held = await this.#kept(stored, searchables, dimension, vectors);
    return this.#plans.keep(keys, {
      state,
      dimension,
      vectors,
      indexes: order.map((i) => searchables[i]!),
      kept: order.map((i) => held[i]),
      keys: order.map((i) => stored[i]!.key),
      keyOf: new Map(stored.map((index) => [index.id, index.key])),
      cacheKeys: stored.map((index) => storedCacheKey(index, dimension)),
    });
  }

  /**
   * The ids of the candidates nearest the query's vector, by their stored
   * vectors: those kept in memory, else read.
   */
  async #nearest(
    candidates: readonly Place[],
    query: SearchQuery,
    indexes: readonly Searchable[],
    kept: readonly (KeptPassages | undefined)[],
  ): Promise<number[]> {
    if (candidates.length === 0) return [];
    query.signal?.throwIfAborted();
    const vectors = new Map<number, Float32Array>();
    const unread: number[] = [];
    for (const { index, chunk } of candidates) {
      const id = indexes[index]!.ids[chunk]!;
      const vector = kept[index] && vectorAt(kept[index], chunk);
      if (vector) vectors.set(id, vector);
      else unread.push(id);
    }
    if (unread.length > 0) {
      // The ids as one argument: 120 bound one by one took 0.5 ms.
      const stored = await this.#client.execute({
        sql: `SELECT chunk_id, embedding FROM rag_vectors_${query.vector.length}
          WHERE chunk_id IN (SELECT value FROM json_each(?))`,
        args: [JSON.stringify(unread)],
      });
      for (const row of stored.rows) {
        vectors.set(Number(row.chunk_id), new Float32Array(row.embedding as ArrayBuffer));
      }
    }
    const ids = candidates.map(({ index, chunk }) => indexes[index]!.ids[chunk]!);
    return nearestExactly(ids, (id) => vectors.get(id), query.vector, {
      limit: query.limit,
      tie: (a, b) => a - b,
    });
  }

  /**
   * What search reads of the indexes, from memory, the indexes not there yet
   * read from the database (and kept, within the budget).
   */
  async #searchable(
    stored: readonly StoredIndex[],
    dimension: number,
    vectors: boolean,
  ): Promise<Searchable[]> {
    const createdAt = new Map(stored.map((index) => [index.id, index.createdAt]));
    const held = new Map<number, Searchable>();
    const missing: number[] = [];
    for (const index of stored) {
      const entry = this.#memory.get(storedCacheKey(index, dimension));
      if (entry) held.set(index.id, entry);
      else missing.push(index.id);
    }
    const built: InStatement[] = [];
    const reading = this.#read(missing, dimension, vectors, { postings: true });
    for await (const { id, ids, passages, embeddings, postings } of reading) {
      const entry = await searchable(
        ids,
        passages.texts,
        embeddings,
        dimension,
        passages.bytes,
        postings,
      );
      if (!postings && ids.length > 0) {
        built.push(postingsStatement(id, createdAt.get(id)!, entry.terms, { ifIndexed: true }));
      }
      held.set(id, entry);
      this.#memory.set(cacheKey(createdAt.get(id)!, id, dimension), entry);
      this.#passages.set(cacheKey(createdAt.get(id)!, id, dimension), passages);
    }
    // Postings built here, of an index stored before they were kept, are kept for the next start;
    // a disk that refuses the write (full, read-only) leaves them to be built again then.
    if (built.length > 0) await this.#write(built).catch(() => {});
    return stored.map((index) => held.get(index.id)!);
  }

  /** The ids and times of the complete indexes under `keys`, those read before kept while unchanged. */
  async #storedIndexes(
    keys: readonly string[],
    state: string | undefined,
  ): Promise<StoredIndex[]> {
    if (state === undefined || this.#indexes.state !== state) {
      this.#indexes = { state: state ?? "", byKey: new Map() };
    }
    const { byKey } = this.#indexes;
    const missing = keys.filter((key) => !byKey.has(key));
    if (missing.length > 0) {
      const found = await this.#jsonRows({
        sql: `SELECT json_group_array(json_object('id', id, 'key', key, 'created_at', created_at))
          FROM rag_indexes WHERE key IN (${marks(missing.length)})`,
        args: missing,
      });
      for (const row of found) {
        const key = String(row.key);
        byKey.set(key, { id: Number(row.id), key, createdAt: Number(row.created_at) });
      }
    }
    return keys.flatMap((key) => byKey.get(key) ?? []);
  }

  /**
   * What the database's rows are at now, for the rows kept between questions: the count of
   * writes that every backend adds to at each of its writes (`rag_meta`'s generation), and
   * SQLite's `data_version`, which counts the commits of every other connection, other
   * processes' included. Undefined for a database on a server: its rows are read at every
   * question.
   */
  async #state(): Promise<string | undefined> {
    if (!this.#keepsRows) return undefined;
    const { rows } = await this.#client.execute(
      `SELECT (SELECT value FROM rag_meta WHERE name = 'generation'),
        (SELECT data_version FROM pragma_data_version)`,
    );
    return `${rows[0]?.[0]} ${rows[0]?.[1]}`;
  }

  /** Runs statements in one write transaction, which adds one to the count of writes. */
  async #write(statements: InStatement[]): Promise<ResultSet[]> {
    return await this.#client.batch([...statements, NEXT_GENERATION], "write");
  }

  /** The passages kept in memory of each index searched (see `keptOrRead()`). */
  #kept(
    stored: readonly StoredIndex[],
    indexes: readonly Searchable[],
    dimension: number,
    vectors: boolean,
  ): Promise<(KeptPassages | undefined)[]> {
    return keptOrRead(
      this.#passages,
      stored.map((index) => ({ id: index.id, cacheKey: storedCacheKey(index, dimension) })),
      indexes.reduce((sum, index) => sum + index.passageBytes, 0),
      (missing) => this.#read(missing, dimension, vectors),
    );
  }

  /** The chunks of the indexes `ids`, read from the database some indexes at a time. */
  async *#read(
    ids: readonly number[],
    dimension: number,
    vectors: boolean,
    options: { postings?: boolean } = {},
  ): AsyncGenerator<{
    id: number;
    ids: number[];
    passages: KeptPassages;
    embeddings: Float32Array[];
    /** The index's postings as stored, when asked for and kept for it. */
    postings?: TermPostings;
  }> {
    for (let start = 0; start < ids.length; start += LOADED_INDEXES) {
      const group = ids.slice(start, start + LOADED_INDEXES);
      const postings = options.postings ? await this.#storedPostings(group) : new Map();
      const { rows } = await this.#client.execute({
        sql: vectors
          ? `SELECT c.index_id, c.id, c.ordinal, c.text, c.page_numbers, c.num_tokens, v.embedding
            FROM rag_chunks c JOIN rag_vectors_${dimension} v ON v.chunk_id = c.id
            WHERE c.index_id IN (${marks(group.length)}) ORDER BY c.index_id, c.ordinal`
          : `SELECT c.index_id, c.id, c.ordinal, c.text, c.page_numbers, c.num_tokens
            FROM rag_chunks c
            WHERE c.index_id IN (${marks(group.length)}) ORDER BY c.index_id, c.ordinal`,
        args: group,
      });
      const byIndex = new Map<number, typeof rows[number][]>(group.map((id) => [id, []]));
      for (const row of rows) byIndex.get(Number(row.index_id))!.push(row);
      for (const [id, chunkRows] of byIndex) {
        const embeddings = vectors
          ? chunkRows.map((row) => new Float32Array(row.embedding as ArrayBuffer))
          : [];
        const passages = keepPassages(
          chunkRows.map((row, i) => storedPassage(row, embeddings[i])),
          dimension,
        );
        const stored = postings.get(id);
        yield {
          id,
          ids: chunkRows.map((row) => Number(row.id)),
          passages,
          embeddings,
          // Postings of as many chunks as the index has, else built again.
          postings: stored?.size === chunkRows.length ? stored : undefined,
        };
      }
    }
  }

  /** The postings kept of the indexes `ids`, each for the index made when they were kept. */
  async #storedPostings(ids: readonly number[]): Promise<Map<number, TermPostings>> {
    const { rows } = await this.#client.execute({
      sql: `SELECT p.index_id, p.data FROM rag_postings p
        JOIN rag_indexes i ON i.id = p.index_id AND i.created_at = p.created_at
        WHERE p.index_id IN (${marks(ids.length)})`,
      args: [...ids],
    });
    const postings = new Map<number, TermPostings>();
    for (const row of rows) {
      try {
        const bytes = new Uint8Array(row.data as ArrayBuffer);
        postings.set(Number(row.index_id), TermPostings.fromBytes(bytes, FTS5));
      } catch {
        // Bytes of another format: built again from the texts.
      }
    }
    return postings;
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
        await this.#write(
          await this.#removeIndex(Number(row.id), Number(row.dimension), "abandoned"),
        );
        removed = true;
      }
    } catch {
      // The caller's own write meets the same fault, and says so.
    }
    if ((removed || options.reclaim) && this.#reclaimSpace) await reclaimSpace(this.#client);
  }

  async #linkedIndex(
    link: Pick<IndexLink, "chatId" | "documentId">,
  ): Promise<{ id: number; dimension: number } | undefined> {
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
      { sql: `DELETE FROM rag_postings WHERE index_id = ? AND ${applies}`, args },
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
      await this.#write([
        `CREATE TABLE IF NOT EXISTS ${table} (
          chunk_id INTEGER PRIMARY KEY REFERENCES rag_chunks (id),
          index_id INTEGER NOT NULL,
          embedding F32_BLOB(${dimension}) NOT NULL
        )`,
        `CREATE INDEX IF NOT EXISTS ${table}_by_index ON ${table} (index_id)`,
      ]);
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
 * Keeps an index's postings, for the index made at `createdAt`; with `ifIndexed`, only while that
 * index is still there (postings built by a search, which a removal may have overtaken).
 */
function postingsStatement(
  id: number,
  createdAt: number,
  terms: TermPostings,
  options: { ifIndexed?: boolean } = {},
): InStatement {
  const data = terms.toBytes();
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

function linkStatement(link: IndexLink): InStatement {
  return {
    sql: `INSERT INTO rag_links (chat_id, document_id, index_id)
      SELECT ?, ?, id FROM rag_indexes WHERE key = ?
      ON CONFLICT (chat_id, document_id) DO UPDATE SET index_id = excluded.index_id`,
    args: [link.chatId, link.documentId, link.key],
  };
}

/** A complete index's row id, key and time of creation. */
interface StoredIndex {
  id: number;
  key: string;
  createdAt: number;
}

/** What a search reads of its indexes (`LibSQLBackend.#searchPlan()`), and what it was read at. */
interface SearchPlan {
  /** The database's state it was read at (undefined: read at every search). */
  state: string | undefined;
  dimension: number;
  /** Whether the database holds vectors of the dimension. */
  vectors: boolean;
  /** The indexes in the order of their chunks' ids, each one's passages kept and key. */
  indexes: Searchable[];
  kept: (KeptPassages | undefined)[];
  keys: string[];
  /** Each index's key by its id. */
  keyOf: Map<number, string>;
  /** The search caches' keys of the indexes. */
  cacheKeys: string[];
}

/** One index as search keeps it in memory, with its chunks' ids by ordinal. */
interface Searchable extends MemoryIndex {
  ids: Float64Array;
  /** The bytes its passages take when they are kept too. */
  passageBytes: number;
}

/** What search keeps in memory of an index: its chunks' ids, texts and vectors, by ordinal. */
async function searchable(
  ids: readonly number[],
  texts: readonly string[],
  vectors: readonly Float32Array[],
  dimension: number,
  passageBytes: number,
  terms?: TermPostings,
): Promise<Searchable> {
  const idArray = Float64Array.from(ids);
  const bytes = idArray.byteLength;
  return {
    ...await memoryIndex({ texts, vectors, dimension, flavour: FTS5, bytes, terms }),
    ids: idArray,
    passageBytes,
  };
}

// The cache keys of the indexes read, each made once: the same string at each question is hashed
// once, where making 2,000 of them anew took some 1.5 ms of a question over 1,000 documents.
const storedCacheKeys = new WeakMap<StoredIndex, { dimension: number; key: string }>();

/** {@linkcode cacheKey} of an index read from the database. */
function storedCacheKey(index: StoredIndex, dimension: number): string {
  const made = storedCacheKeys.get(index);
  if (made?.dimension === dimension) return made.key;
  const key = cacheKey(index.createdAt, index.id, dimension);
  storedCacheKeys.set(index, { dimension, key });
  return key;
}

/**
 * The key of an index in search's memory. An id may be reused once its index
 * is removed; with its creation time it names one index.
 */
function cacheKey(createdAt: number, id: number, dimension: number): string {
  return `${id}/${createdAt}/${dimension}`;
}

/** A vector as the bytes of its float32 values, which is how `F32_BLOB` stores it. */
function vectorBytes(vector: Float32Array): InValue {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

function marks(count: number): string {
  return Array.from({ length: count }, () => "?").join(", ");
}
