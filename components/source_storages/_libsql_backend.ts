/**
 * The indexes of the LibSQL source storage in a libSQL database (the tables
 * are in `_libsql_tables.ts`): how it writes an index in batches and gives it
 * its key once complete, links chats to indexes, sweeps what stopped builds
 * and removed indexes leave, and reads what retrieval ranks. Retrieval ranks
 * a chat's chunks in memory (`retrieval/index_search.ts`) with FTS5's words
 * and weights, as an FTS5 table ranked them before; `bench/retrieval_bench.ts`
 * measures both arms against a bare FTS5 query and an exact scan.
 * @module
 */
import type { Client, InStatement, ResultSet } from "@libsql/client";
import { Turns } from "../core/turns.ts";
import { reclaimSpace } from "../sqlite_space.ts";
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
  abandoned,
  batches,
  type IndexBackend,
  type IndexInfo,
  indexInfoOf,
  type IndexLink,
  KeptLinks,
  newBuilder,
  type NewIndex,
  runBuild,
  type SearchQuery,
  type StoredChunk,
  storedChunk,
} from "../indexing/mod.ts";
import {
  cacheKey,
  createTables,
  linkStatement,
  marks,
  NEXT_GENERATION,
  postingsStatement,
  removeIndex,
  type StoredIndex,
  vectorBytes,
  vectorTable,
} from "./_libsql_tables.ts";

// Rows per write; between them other requests may get their turn (see `Turns`).
const BATCH_ROWS = 200;
/** Options of {@linkcode LibSQLBackend.open}: the memory that search keeps, and: */
export interface LibSQLBackendOptions
  extends Pick<IndexSearchOptions<unknown, undefined>, "searchMemory" | "passageMemory"> {
  /**
   * Whether removing indexes gives their space back to the disk (a file; see
   * `reclaimSpace`).
   * @default {false}
   */
  reclaimSpace?: boolean;
  /**
   * Whether a chat's links and its indexes' ids are kept between questions
   * while nothing wrote to the database: for a file, where checking is
   * cheaper than reading them. False for a database on a server, where it is
   * not: they are read at every question.
   * @default {true}
   */
  keepLinks?: boolean;
}

/** The LibSQL storage's indexes in an open libSQL database. */
export class LibSQLBackend implements IndexBackend {
  readonly #client: Client;
  readonly #reclaimSpace: boolean;
  readonly #vectorTables = new Set<number>();
  readonly #search: IndexSearch<StoredIndex, Float64Array>;
  readonly #keepsRows: boolean;
  // Each chat's links, and each index's id and time by key, as last read, with the state read
  // before them.
  readonly #links = new KeptLinks<IndexInfo>();
  readonly #indexes = new KnownIndexes<StoredIndex>();

  private constructor(client: Client, options: LibSQLBackendOptions) {
    this.#client = client;
    this.#reclaimSpace = options.reclaimSpace ?? false;
    this.#keepsRows = options.keepLinks ?? true;
    this.#search = new IndexSearch({
      fullText: "fts5",
      searchMemory: options.searchMemory,
      passageMemory: options.passageMemory,
      reads: {
        indexes: (indexes, { dimension, postings }) => this.#read(indexes, dimension, postings),
        passages: (chunks, dimension) => this.#passagesAt(chunks, dimension),
        keepPostings: async (built) => {
          await this.#write(
            built.map(({ id: index, data }) =>
              postingsStatement(index.id, index.createdAt, data, { ifIndexed: true })
            ),
          );
        },
      },
    });
  }

  /** Creates the tables the database lacks and removes abandoned builds. */
  static async open(client: Client, options: LibSQLBackendOptions = {}): Promise<LibSQLBackend> {
    await createTables(client);
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
    try {
      for await (const { start, items: chunks } of batches(index.chunks, BATCH_ROWS)) {
        const statements = chunks.flatMap((chunk, i): InStatement[] => [{
          sql: `INSERT INTO rag_chunks (index_id, ordinal, text, page_numbers, num_tokens)
            VALUES (?, ?, ?, ?, ?)`,
          args: [id, start + i, chunk.text, JSON.stringify(chunk.pageNumbers), chunk.numTokens],
        }, {
          // The trigger's inserts do not change last_insert_rowid() once it ends.
          sql: `INSERT INTO ${table} (chunk_id, index_id, embedding)
            VALUES (last_insert_rowid(), ?, ?)`,
          args: [id, vectorBytes(index.vectors[start + i]!)],
        }]);
        statements.push({
          sql: `UPDATE rag_builds SET heartbeat = ? WHERE index_id = ?`,
          args: [Date.now(), id],
        });
        const results = await this.#write(statements);
        chunks.forEach((_, i) => ids.push(Number(results[2 * i]!.lastInsertRowid)));
      }
      // Other requests get their turn after the building of a large document.
      const turns = new Turns();
      // Ready for the chat's first question, which would read it all back otherwise, and its
      // postings stored with it, for the first question after a start.
      using prepared = await this.#search.prepare(index, { extra: Float64Array.from(ids) });
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
        postingsStatement(id, now, prepared.postings()),
        linkStatement(link),
        ...await this.#removeIndex(id, index.dimension, "abandoned"),
        ...earlier ? await this.#removeIndex(earlier.id, earlier.dimension, "orphan") : [],
      ]);
      if (completed!.rowsAffected > 0 && ids.every(Number.isInteger)) {
        prepared.keep(cacheKey(id, now));
      }
    } catch (error) {
      // When this fails too (a full disk), the rows go at the next sweep.
      await this.#write(await this.#removeIndex(id, index.dimension, "abandoned"))
        .catch(() => {});
      throw error;
    }
  }

  async links(chatId: string): Promise<Map<string, IndexInfo>> {
    return await this.#links.read(chatId, await this.#state(), () => this.#readLinks(chatId));
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
   * an object with a getter per column of each row it reads, which a chat of
   * many documents felt at every question.
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
    // A database on a server is read at every search.
    const state = await this.#state() ?? {};
    return await this.#search.search(keys, query, {
      state,
      find: async () =>
        (await this.#indexes.of(keys, (missing) => this.#storedIndexes(missing), state))
          .map((index): FoundIndex<StoredIndex> => ({
            id: index,
            key: index.key,
            cacheKey: index.cacheKey,
          })),
    });
  }

  /** The ids and times of the complete indexes under `keys`. */
  async #storedIndexes(keys: readonly string[]): Promise<[string, StoredIndex][]> {
    const found = await this.#jsonRows({
      sql: `SELECT json_group_array(json_object('id', id, 'key', key, 'created_at', created_at))
        FROM rag_indexes WHERE key IN (${marks(keys.length)})`,
      args: [...keys],
    });
    return found.map((row) => {
      const key = String(row.key);
      const [id, createdAt] = [Number(row.id), Number(row.created_at)];
      return [key, { id, key, createdAt, cacheKey: cacheKey(id, createdAt) }];
    });
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

  /**
   * The chunks of the indexes `group`, with their vectors of `dimension`
   * when there are any, and the postings kept of each when asked for.
   */
  async *#read(
    group: readonly StoredIndex[],
    dimension: number,
    withPostings: boolean,
  ): AsyncGenerator<ReadIndex<StoredIndex, Float64Array>> {
    const vectors = await this.#hasVectors(dimension);
    const ids = group.map((index) => index.id);
    const postings = withPostings ? await this.#storedPostings(ids) : new Map();
    const { rows } = await this.#client.execute({
      sql: vectors
        ? `SELECT c.index_id, c.id, c.ordinal, c.text, c.page_numbers, c.num_tokens, v.embedding
          FROM rag_chunks c JOIN rag_vectors_${dimension} v ON v.chunk_id = c.id
          WHERE c.index_id IN (${marks(group.length)}) ORDER BY c.index_id, c.ordinal`
        : `SELECT c.index_id, c.id, c.ordinal, c.text, c.page_numbers, c.num_tokens
          FROM rag_chunks c
          WHERE c.index_id IN (${marks(group.length)}) ORDER BY c.index_id, c.ordinal`,
      args: ids,
    });
    const byIndex = new Map<number, typeof rows[number][]>(ids.map((id) => [id, []]));
    for (const row of rows) byIndex.get(Number(row.index_id))!.push(row);
    for (const index of group) {
      const chunkRows = byIndex.get(index.id)!;
      yield {
        id: index,
        passages: chunkRows.map((row) =>
          storedPassage(row, vectors ? new Float32Array(row.embedding as ArrayBuffer) : undefined)
        ),
        postings: postings.get(index.id),
        extra: Float64Array.from(chunkRows, (row) => Number(row.id)),
      };
    }
  }

  /** The postings kept of the indexes `ids`, each for the index made when they were kept. */
  async #storedPostings(ids: readonly number[]): Promise<Map<number, Uint8Array>> {
    const { rows } = await this.#client.execute({
      sql: `SELECT p.index_id, p.data FROM rag_postings p
        JOIN rag_indexes i ON i.id = p.index_id AND i.created_at = p.created_at
        WHERE p.index_id IN (${marks(ids.length)})`,
      args: [...ids],
    });
    return new Map(
      rows.map((row) => [Number(row.index_id), new Uint8Array(row.data as ArrayBuffer)]),
    );
  }

  /**
   * The passages, with their vectors, of chunks that search does not keep,
   * by their ids: the ids as one argument and the rows as one JSON array,
   * which the client reads faster than a row object each and an argument an id.
   */
  async #passagesAt(
    chunks: readonly ChunkAt<StoredIndex, Float64Array>[],
    dimension: number,
  ): Promise<(StoredPassage | undefined)[]> {
    const ids = JSON.stringify(chunks.map((chunk) => chunk.extra[chunk.chunk]!));
    const rows = await this.#jsonRows({
      sql: `SELECT json_group_array(json_object('id', id, 'ordinal', ordinal, 'text', text,
          'page_numbers', page_numbers, 'num_tokens', num_tokens))
        FROM rag_chunks WHERE id IN (SELECT value FROM json_each(?))`,
      args: [ids],
    });
    const vectors = new Map<number, Float32Array>();
    if (await this.#hasVectors(dimension)) {
      const stored = await this.#client.execute({
        sql: `SELECT chunk_id, embedding FROM rag_vectors_${dimension}
          WHERE chunk_id IN (SELECT value FROM json_each(?))`,
        args: [ids],
      });
      for (const row of stored.rows) {
        vectors.set(Number(row.chunk_id), new Float32Array(row.embedding as ArrayBuffer));
      }
    }
    const byId = new Map(rows.map((row) => [Number(row.id), row]));
    return chunks.map((chunk) => {
      const id = chunk.extra[chunk.chunk]!;
      const row = byId.get(id);
      return row && storedPassage(row, vectors.get(id));
    });
  }

  async chunks(key: string): Promise<StoredChunk[]> {
    const found = await this.#client.execute({
      sql: `SELECT c.ordinal, c.text, c.page_numbers, c.num_tokens
        FROM rag_chunks c JOIN rag_indexes i ON i.id = c.index_id
        WHERE i.key = ? ORDER BY c.ordinal`,
      args: [key],
    });
    return found.rows.map((row) => storedChunk(key, row));
  }

  /**
   * Removes the rows of every incomplete index whose build has stopped (see
   * `indexing/builds.ts`), then gives the space back when anything was removed or
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

  /** {@linkcode removeIndex}'s statements, for an index of `dimension`. */
  async #removeIndex(
    id: number,
    dimension: number,
    when: "orphan" | "abandoned",
  ): Promise<InStatement[]> {
    return removeIndex(id, when, (await this.#hasVectors(dimension)) ? dimension : undefined);
  }

  /** The table of vectors of a dimension, created when missing. */
  async #vectorTable(dimension: number): Promise<string> {
    if (!this.#vectorTables.has(dimension)) {
      await this.#write(vectorTable(dimension));
      this.#vectorTables.add(dimension);
    }
    return `rag_vectors_${dimension}`;
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
