/**
 * The indexes of the LanceDB source storage in a LanceDB folder: three
 * tables, `indexes` (one row per complete index), `links` (chat, document,
 * index) and `chunks_<dimension>` (text, pages and vector of each chunk, with
 * a full-text index on the text and a B-tree on the index key).
 *
 * A search ranks the chat's chunks, and only those, in memory
 * (`retrieval/memory_search.ts`): what it needs of each index (the chunks' texts and
 * vectors) is read once and kept, within a budget, as svc's BM25 postings and
 * 8-bit vector codes. The full-text arm is svc's own BM25, as Chroma's:
 * LanceDB's full-text search, with its own words, ranked the repository's
 * labelled set worse (MRR 0.62 against 0.72), and its term statistics are the
 * whole table's. The vector arm ranks the codes' best candidates exactly by
 * their stored vectors; LanceDB's exact scan of a chat's vectors took 350 ms
 * for 100,000 of them.
 *
 * No ANN (IVF-PQ) index, on purpose. Measured on 2 cores, 100,000 vectors of
 * 512 dimensions: training one took 120 to 145 s, which is no wait to put
 * behind an upload; and an ANN index over all chats answers a chat's query
 * from the partitions nearest the query, which mostly hold other chats'
 * chunks (see `_libsql_backend.ts` for the same finding with libSQL).
 *
 * LanceDB has no transactions: the writes of one process go one at a time
 * (`SerialBackend`, which also keeps the links), which makes storing an index
 * and linking it one step, and every write checks what it depends on first.
 * The indexes added while a write is under way are written together at the
 * next turn: a table's write, a few milliseconds however few its rows, is
 * made once for them all (indexing 100,000 passages 2,100 to 2,600 a second
 * rather than 1,550 to 1,700). Several processes may read one folder (strong read
 * consistency); only one should write at a time.
 * @module
 */
import type * as Lance from "npm:@lancedb/lancedb@0.31.0";
import type * as Arrow from "npm:apache-arrow@18.1.0";
import {
  type ChunkAt,
  IndexSearch,
  type PreparedIndex,
  type ReadIndex,
  type StoredPassage,
  storedPassage,
  type WordsKept,
} from "../retrieval/mod.ts";
import { DEFAULT_PASSAGE_MEMORY } from "../retrieval/search_cache.ts";
import { chunkRows } from "./_lance_chunk_rows.ts";
import {
  type IndexInfo,
  indexInfoOf,
  type IndexLink,
  indexRecord,
  KeptLinks,
  type NewIndex,
  type SearchQuery,
  SerialBackend,
  type StoredChunk,
  type StoredLink,
} from "../indexing/mod.ts";

/** The modules the backend runs on, loaded by the caller on demand. */
export interface LanceModules {
  lancedb: typeof Lance;
  arrow: typeof Arrow;
}

// Writes to a table between two compactions: each write adds a small file
// (a fragment), and many of them slow every scan.
const WRITES_PER_COMPACTION = 32;
// A compaction rewrites every fragment of fewer than a million rows, so the
// whole of a chunks table: one waits, beyond the writes above, until the rows
// written since are this share of those it rewrote last, so that the rows
// rewritten stay a few times those written (at every 32 writes, compactions
// took 26 s of the 82 that indexing 100,000 passages took, and 5.5 of 59 so).
const CHUNKS_GROWTH_PER_COMPACTION = 0.25;
// How long a searched version stays readable after a compaction: longer than
// any search, so that none loses its files midway.
const KEEP_VERSIONS_MS = 60_000;
const CHUNK_COLUMNS = ["key", "ordinal", "text", "page_numbers", "num_tokens"];
// How stale a chat's links may be to another process's writes (this process's are seen at once).
const OTHERS_WRITES_MS = 100;
// Indexes read from the table at a time, when a search first needs them.
const LOADED_INDEXES = 16;
// The most cache keys kept made (see #cacheKey): some megabytes.
const MADE_CACHE_KEYS = 100_000;
// Indexes stored whose postings are written in one go: each write of the postings table adds a
// file, and a compaction rewrites it whole (every 32 writes, indexing 100,000 passages took 50 s
// rather than 40).
const POSTINGS_PER_WRITE = 64;

/** The tables of an open LanceDB folder. */
export class LanceDBBackend extends SerialBackend {
  readonly #db: Lance.Connection;
  readonly #modules: LanceModules;
  readonly #tables = new Map<string, Promise<Lance.Table>>();
  readonly #writes = new Map<string, number>();
  // Of each chunks table: the rows written since its last compaction, and the rows it then had.
  readonly #rowsWritten = new Map<string, { since: number; compacted: number }>();
  // Each chat's links as last read, and the versions of the two tables they were read at.
  readonly #links = new KeptLinks<IndexInfo>();
  // The tables' versions as last read, and when; whether this process wrote since.
  #versionsRead: { at: number; versions: string } | undefined;
  #wroteSince = false;
  readonly #search: IndexSearch<string, BigInt64Array>;
  readonly #cacheKeys = new Map<string, { dimension: number; cacheKey: string }>();
  // The indexes waiting for the writes' turn, written together (see add()).
  #queued: QueuedIndex[] = [];
  // The postings of the indexes stored since they were last written, by key.
  readonly #postings = new Map<string, Uint8Array>();

  private constructor(db: Lance.Connection, modules: LanceModules, passageMemory: number) {
    super();
    this.#db = db;
    this.#modules = modules;
    this.#search = new IndexSearch({
      fullText: "svc",
      passageMemory,
      reads: {
        indexes: (keys, { dimension, postings }) => this.#read(keys, dimension, postings),
        passages: (chunks, dimension) => this.#passagesAt(chunks, dimension),
        keepPostings: async (built) => {
          const rows = built.map(({ id, data }) => ({ key: id, data }));
          await (await this.#table("postings")).add(rows);
        },
      },
      // Ties in the order of the chunks, so that a search gives the same on every run.
      tie: (a, b) => a.key.localeCompare(b.key) || a.ordinal - b.ordinal,
    });
  }

  /**
   * Opens (and creates) the folder and its tables. `passageMemory` is the
   * bytes of memory that searching may keep of the passages themselves (texts,
   * pages, tokens and vectors); the passages beyond it are read at each question.
   */
  static async open(
    path: string,
    modules: LanceModules,
    { passageMemory = DEFAULT_PASSAGE_MEMORY }: { passageMemory?: number } = {},
  ): Promise<LanceDBBackend> {
    // Reads check for other processes' writes: a server and a command may share a folder.
    const db = await modules.lancedb.connect(path, { readConsistencyInterval: 0 });
    const backend = new LanceDBBackend(db, modules, passageMemory);
    await Promise.all([backend.#table("indexes"), backend.#table("links")]);
    return backend;
  }

  /**
   * Stores an index with the others added meanwhile, in one write of each
   * table (a write of LanceDB costs some milliseconds however few its rows,
   * and adds a file that every read opens until a compaction), and keeps
   * what search needs of it, for the chat's first question.
   */
  async add(index: NewIndex, link: IndexLink): Promise<void> {
    // Made while other indexes are written: what search keeps of this one, its postings too,
    // which are kept beside it for the first question of another process.
    const rowIds = new BigInt64Array(index.chunks.length).fill(UNREAD_ROW);
    const queued: QueuedIndex = {
      index,
      link,
      prepared: await this.#search.prepare(index, { extra: rowIds }),
      written: Promise.withResolvers<void>(),
    };
    this.#queued.push(queued);
    // The first queued since the last write takes the next turn, for all queued by then.
    if (this.#queued.length === 1) {
      this.exclusive(async () => {
        const batch = this.#queued.splice(0);
        await this.#write(batch).then(
          () => batch.forEach(({ written }) => written.resolve()),
          (error) => batch.forEach(({ written }) => written.reject(error)),
        );
      });
    }
    try {
      await queued.written.promise;
    } finally {
      // Not kept by the write: given back.
      queued.prepared.drop();
    }
  }

  /** Writes indexes queued, each linked to its chat's document (see add()). */
  async #write(batch: readonly QueuedIndex[]): Promise<void> {
    const fresh: QueuedIndex[] = [];
    const again: QueuedIndex[] = [];
    const stored = await this.infos(batch.map(({ index }) => index.key));
    for (const queued of batch) {
      const { key } = queued.index;
      // Stored meanwhile (by another process), or queued twice: linked to that one.
      if (stored.has(key) && await this.linkHeld(queued.link)) continue;
      if (fresh.some(({ index }) => index.key === key)) again.push(queued);
      else fresh.push(queued);
    }
    const byDimension = Map.groupBy(fresh, ({ index }) => index.dimension);
    const where = (indexes: readonly QueuedIndex[]) =>
      `key IN (${indexes.map(({ index }) => literal(index.key)).join(", ")})`;
    for (const [dimension, indexes] of byDimension) {
      const chunks = await this.#table(`chunks_${dimension}`);
      // The rows of builds that crashed before they were complete.
      if (await chunks.countRows(where(indexes)) > 0) await chunks.delete(where(indexes));
      const rows = indexes.filter(({ index }) => index.chunks.length > 0);
      // LanceDB refuses to add no rows: a document without text has none.
      if (rows.length > 0) {
        const schema = this.#schema(`chunks_${dimension}`);
        await chunks.add(
          await chunkRows(this.#modules.lancedb, schema, rows.map(({ index }) => index)),
        );
      }
    }
    try {
      if (fresh.length > 0) {
        await (await this.#table("indexes")).add(fresh.map(({ index }) => indexRecord(index)));
      }
      await this.#linkStored(fresh.map(({ link }) => link));
    } catch (error) {
      // Not left half stored: an index without its chunks would be linked to by the next store.
      for (const [dimension, indexes] of byDimension) {
        await (await this.#table(`chunks_${dimension}`)).delete(where(indexes)).catch(() => {});
      }
      if (fresh.length > 0) {
        await (await this.#table("indexes")).delete(where(fresh)).catch(() => {});
      }
      throw error;
    }
    for (const queued of again) await this.linkHeld(queued.link, { indexed: true });
    for (const [dimension, indexes] of byDimension) {
      const rows = indexes.reduce((sum, { index }) => sum + index.chunks.length, 0);
      await this.#wrote(`chunks_${dimension}`, rows);
    }
    await this.#wrote("indexes");
    const kept = fresh.filter(({ index }) => index.chunks.length > 0);
    for (const { index, prepared } of kept) {
      prepared.keep(this.#cacheKey(index.key, index.dimension));
      this.#postings.set(index.key, prepared.postings());
    }
    if (this.#postings.size >= POSTINGS_PER_WRITE) await this.#writePostings({ counted: true });
  }

  /**
   * Writes the postings of the indexes stored since they were last written: some indexes at a
   * time, the last at the next search (until then, another process builds them at its first).
   * `counted`: by the holder of the writes' turn, which may compact the table.
   */
  async #writePostings({ counted = false } = {}): Promise<void> {
    const rows = [...this.#postings].map(([key, data]) => ({ key, data }));
    this.#postings.clear();
    // A disk that refuses them leaves them to be built by another process's first search.
    await this.#table("postings").then((table) => table.add(rows))
      .then(() => counted ? this.#wrote("postings", rows.length) : undefined).catch(() => {});
  }

  /**
   * Links chats' documents to the indexes just stored for them: those not
   * linked before in one write, the others as `linkHeld()` replaces a link.
   */
  async #linkStored(links: readonly IndexLink[]): Promise<void> {
    if (links.length === 0) return;
    const pair = (chatId: unknown, documentId: unknown) => JSON.stringify([chatId, documentId]);
    const chats = [...new Set(links.map((link) => link.chatId))].map(literal).join(", ");
    const documents = [...new Set(links.map((link) => link.documentId))].map(literal).join(", ");
    const linked = new Set(
      (await this.#rows("links", `chat_id IN (${chats}) AND document_id IN (${documents})`))
        .map((row) => pair(row.chat_id, row.document_id)),
    );
    // A document linked twice here is linked once, then relinked.
    const added: IndexLink[] = [];
    for (const link of links) {
      const linking = pair(link.chatId, link.documentId);
      if (linked.has(linking)) continue;
      linked.add(linking);
      added.push(link);
    }
    if (added.length > 0) {
      await (await this.#table("links")).add(
        added.map((link) => ({
          chat_id: link.chatId,
          document_id: link.documentId,
          key: link.key,
        })),
      );
      await this.#wrote("links");
    }
    for (const link of links) {
      if (!added.includes(link)) await this.linkHeld(link, { indexed: true });
    }
  }

  async search(
    keys: readonly string[],
    query: SearchQuery,
  ): Promise<(StoredChunk & WordsKept)[][]> {
    const name = `chunks_${query.vector.length}`;
    if (keys.length === 0) return [[], []];
    // Made by the first index of its dimension: none yet, nothing to find.
    if (!this.#tables.has(name) && !(await this.#db.tableNames()).includes(name)) return [[], []];
    await this.#table(name);
    this.#compactForSearch(name);
    if (this.#postings.size > 0) await this.#writePostings();

    query.signal?.throwIfAborted();
    const dimension = query.vector.length;
    return await this.#search.search(keys, query, {
      find: () =>
        Promise.resolve(
          keys.map((key) => ({ id: key, key, cacheKey: this.#cacheKey(key, dimension) })),
        ),
    });
  }

  /**
   * The key of an index in the caches of search, made once: the same string at each question is
   * hashed once, where making them anew took some 1.5 ms of a question over 1,000 documents.
   */
  #cacheKey(key: string, dimension: number): string {
    const made = this.#cacheKeys.get(key);
    if (made?.dimension === dimension) return made.cacheKey;
    // Forgotten whole now and then: the keys of removed indexes are not looked for again.
    if (this.#cacheKeys.size >= MADE_CACHE_KEYS) this.#cacheKeys.clear();
    const cacheKey = `${dimension}/${key}`;
    this.#cacheKeys.set(key, { dimension, cacheKey });
    return cacheKey;
  }

  /**
   * The chunks of the indexes under `keys`, read from the table some indexes at a time, with the
   * postings kept of each when asked for (built by a first search before: an index's postings
   * depend on its texts alone, which its key names).
   */
  async *#read(
    keys: readonly string[],
    dimension: number,
    withPostings: boolean,
  ): AsyncGenerator<ReadIndex<string, BigInt64Array>> {
    const chunks = await this.#table(`chunks_${dimension}`);
    for (let start = 0; start < keys.length; start += LOADED_INDEXES) {
      const group = keys.slice(start, start + LOADED_INDEXES);
      const where = `key IN (${group.map(literal).join(", ")})`;
      // A folder from before the table, on a disk that cannot make it now, still searches.
      const postings = withPostings ? await this.#rows("postings", where).catch(() => []) : [];
      const termsOf = new Map(postings.map((row) => [String(row.key), row.data as Uint8Array]));
      const rows = await chunks.query().where(where)
        .select([...CHUNK_COLUMNS, "vector"]).withRowId().toArray();
      const byKey = new Map(group.map((key) => [key, [] as typeof rows]));
      for (const row of rows) byKey.get(row.key)?.push(row);
      for (const [key, own] of byKey) {
        own.sort((a, b) => Number(a.ordinal) - Number(b.ordinal));
        yield {
          id: key,
          passages: own.map((row) => storedPassage(row, row.vector.toArray() as Float32Array)),
          postings: termsOf.get(key),
          extra: BigInt64Array.from(own, (row) => BigInt(row._rowid)),
        };
      }
    }
  }

  /** The passages, with their vectors, of chunks that search does not keep. */
  async #passagesAt(
    chunks: readonly ChunkAt<string, BigInt64Array>[],
    dimension: number,
  ): Promise<(StoredPassage | undefined)[]> {
    const rows = await this.#rowsAt(
      await this.#table(`chunks_${dimension}`),
      chunks.map((chunk) => ({ ...chunk, rowId: chunk.extra[chunk.chunk]! })),
      // Row ids that changed (a compaction rewrote their files): kept for the next question.
      (i, rowId) => chunks[i]!.extra[chunks[i]!.chunk] = rowId,
    );
    return chunks.map((chunk) => {
      const row = rows.get(`${chunk.key}/${chunk.ordinal}`);
      return row && storedPassage(row, row.vector.toArray() as Float32Array);
    });
  }

  /**
   * The rows of the chunks at `places`, with their vectors, by key and ordinal: taken by the row
   * ids read with them (100 of 100,000 chunks in 5.9 ms, against 15 found by key and ordinal),
   * those not found so by key and ordinal, their new row ids given to `moved` with their place's
   * number: a compaction rewrites the files of the rows it keeps, under new ids.
   */
  async #rowsAt(
    chunks: Lance.Table,
    places: readonly (ChunkPlace & { rowId: bigint })[],
    moved: (i: number, rowId: bigint) => void,
  ): Promise<Map<string, Row>> {
    const rows = new Map<string, Row>();
    if (places.length === 0) return rows;
    const named = (key: unknown, ordinal: unknown) => `${key}/${ordinal}`;
    const read = places.filter((place) => place.rowId !== UNREAD_ROW);
    try {
      const taken = read.length === 0
        ? []
        : await chunks.takeRowIds(read.map((place) => place.rowId))
          .select([...CHUNK_COLUMNS, "vector"]).toArray();
      // A row id of a file compacted away names no row, or another's: each row taken is checked.
      for (const row of taken) rows.set(named(row.key, row.ordinal), row);
    } catch {
      // Ids of files a compaction removed: all found by key and ordinal below.
    }
    const missing = [...places.keys()].filter((i) => {
      const { key, ordinal } = places[i]!;
      return !rows.has(named(key, ordinal));
    });
    if (missing.length === 0) return rows;
    const number = new Map(missing.map((i) => [named(places[i]!.key, places[i]!.ordinal), i]));
    // The B-tree finds the keys; one list names the chunks (a disjunction of a condition per
    // document made LanceDB test each of 100,000 rows against it, for 1.5 s).
    const where =
      `key IN (${[...new Set(missing.map((i) => places[i]!.key))].map(literal).join(", ")})` +
      ` AND concat(key, '/', CAST(CAST(ordinal AS BIGINT) AS VARCHAR)) IN (${
        [...number.keys()].map(literal).join(", ")
      })`;
    const found = await chunks.query().where(where).select([...CHUNK_COLUMNS, "vector"]).withRowId()
      .toArray();
    for (const row of found) {
      const name = named(row.key, row.ordinal);
      rows.set(name, row);
      moved(number.get(name)!, BigInt(row._rowid));
    }
    return rows;
  }

  async chunks(key: string): Promise<StoredChunk[]> {
    const info = (await this.infos([key])).get(key);
    if (!info) return [];
    const rows = await (await this.#table(`chunks_${info.dimension}`)).query()
      .where(`key = ${literal(key)}`).select(CHUNK_COLUMNS).toArray();
    return rows.map(chunkOf).sort((a, b) => a.ordinal - b.ordinal);
  }

  /**
   * A chat's links, read again only when the links or the indexes changed
   * since: two reads of the tables' versions (which see every process's
   * writes) rather than two queries. The versions are read after each write
   * of this process, else at most every {@linkcode OTHERS_WRITES_MS}: each
   * read took 0.6 ms, a fifth of a small chat's question. They are read
   * before the links, so links kept are never older than the versions they
   * are kept with.
   */
  override async links(chatId: string): Promise<Map<string, IndexInfo>> {
    const versions = await this.#versions();
    const held = this.#links.get(chatId, versions);
    if (held) return held;
    const links = await super.links(chatId);
    this.#links.set(chatId, versions, links);
    return links;
  }

  /** The versions of the links and indexes tables, as last read (see `links()`). */
  async #versions(): Promise<string> {
    const now = performance.now();
    if (this.#versionsRead && !this.#wroteSince && now - this.#versionsRead.at < OTHERS_WRITES_MS) {
      return this.#versionsRead.versions;
    }
    // Cleared before the read: a write that ends during it is read again next time.
    this.#wroteSince = false;
    const tables = await Promise.all([this.#table("links"), this.#table("indexes")]);
    const versions = (await Promise.all(tables.map((table) => table.version()))).join(" ");
    this.#versionsRead = { at: now, versions };
    return versions;
  }

  protected override exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return super.exclusive(async () => {
      try {
        return await fn();
      } finally {
        this.#wroteSince = true;
      }
    });
  }

  protected override async chatLinks(chatId: string): Promise<StoredLink[]> {
    const rows = await this.#rows("links", `chat_id = ${literal(chatId)}`);
    return rows.map((row) => ({ documentId: String(row.document_id), key: String(row.key) }));
  }

  protected override async linkedKey(link: IndexLink): Promise<string | undefined> {
    const where = `chat_id = ${literal(link.chatId)} AND document_id = ${literal(link.documentId)}`;
    const [row] = await this.#rows("links", where);
    return row === undefined ? undefined : String(row.key);
  }

  protected override async writeLink(
    link: IndexLink,
    { replaces }: { replaces: boolean },
  ): Promise<void> {
    const row = { chat_id: link.chatId, document_id: link.documentId, key: link.key };
    const links = await this.#table("links");
    // A merge joins the table with the row: twice the time of adding it, so only when it replaces.
    if (replaces) {
      await links.mergeInsert(["chat_id", "document_id"])
        .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute([row]);
    } else await links.add([row]);
    await this.#wrote("links");
  }

  protected override async deleteLinks(chatId: string): Promise<void> {
    await (await this.#table("links")).delete(`chat_id = ${literal(chatId)}`);
    await this.#wrote("links");
  }

  protected override async removeOrphans(keys: Iterable<string>): Promise<void> {
    const emptied = new Set<string>();
    for (const key of keys) {
      const table = await this.#removeIfOrphan(key);
      if (table) emptied.add(table);
    }
    if (emptied.size > 0) await this.#compactRemoved(emptied);
  }

  /**
   * Removes an index that no chat links to any more, with its chunks; gives
   * the name of the chunks table it removed them from.
   */
  async #removeIfOrphan(key: string): Promise<string | undefined> {
    const where = `key = ${literal(key)}`;
    if (await (await this.#table("links")).countRows(where) > 0) return undefined;
    const info = (await this.infos([key])).get(key);
    if (!info) return undefined;
    const chunks = `chunks_${info.dimension}`;
    this.#postings.delete(key);
    await (await this.#table(chunks)).delete(where);
    await (await this.#table("postings")).delete(where);
    await (await this.#table("indexes")).delete(where);
    return chunks;
  }

  /**
   * Deleted rows stay in the files of older versions until a compaction
   * prunes them: compact after removing indexes, so that a deleted chat's
   * text leaves the disk (at the latest at the next compaction, for rows
   * written less than a minute before).
   */
  async #compactRemoved(tables: Iterable<string>): Promise<void> {
    for (const table of new Set([...tables, "postings", "indexes"])) await this.#compact(table);
  }

  protected override async infos(keys: readonly string[]): Promise<Map<string, IndexInfo>> {
    if (keys.length === 0) return new Map();
    const rows = await this.#rows(
      "indexes",
      `key IN (${[...new Set(keys)].map(literal).join(", ")})`,
    );
    return new Map(rows.map((row) => [String(row.key), indexInfoOf(row)]));
  }

  async #rows(table: string, where: string): Promise<Row[]> {
    return await (await this.#table(table)).query().where(where).toArray();
  }

  /** A table, opened or created (with its indexes) on first use. */
  #table(name: string): Promise<Lance.Table> {
    let table = this.#tables.get(name);
    if (!table) {
      table = (async () => {
        // Opened when it exists: the schema LanceDB stores does not compare
        // equal to the one it was created with (`existOk` refuses it).
        const created = (await this.#db.tableNames()).includes(name)
          ? await this.#db.openTable(name)
          : await this.#db.createEmptyTable(name, this.#schema(name)).catch(() =>
            this.#db.openTable(name) // created meanwhile by another process
          );
        // Every table is looked up by its indexes' keys.
        const indexed = new Set((await created.listIndices()).flatMap((index) => index.columns));
        if (!indexed.has("key")) {
          await created.createIndex("key", { config: this.#modules.lancedb.Index.btree() });
        }
        return created;
      })();
      this.#tables.set(name, table);
      table.catch(() => this.#tables.delete(name));
    }
    return table;
  }

  #schema(name: string): Arrow.Schema {
    const { Field, FixedSizeList, Float32, Int32, Schema, Utf8 } = this.#modules.arrow;
    const text = (column: string) => new Field(column, new Utf8(), false);
    const integer = (column: string) => new Field(column, new Int32(), false);
    if (name === "indexes") {
      return new Schema([
        text("key"),
        text("content_hash"),
        integer("chunk_size"),
        integer("chunk_overlap"),
        text("embedder"),
        integer("dimension"),
      ]);
    }
    if (name === "links") return new Schema([text("chat_id"), text("document_id"), text("key")]);
    if (name === "postings") {
      return new Schema([text("key"), new Field("data", new this.#modules.arrow.Binary(), false)]);
    }
    const dimension = Number(name.slice("chunks_".length));
    if (!Number.isInteger(dimension) || dimension < 1) {
      throw new RangeError(`A vector dimension must be a positive integer, not ${dimension}`);
    }
    return new Schema([
      text("key"),
      integer("ordinal"),
      text("text"),
      text("page_numbers"),
      integer("num_tokens"),
      new Field("vector", new FixedSizeList(dimension, new Field("item", new Float32())), false),
    ]);
  }

  /**
   * Counts a write to a table (of `rows` rows to a table of large rows, see `largeRows()`), and
   * compacts it every so many.
   */
  async #wrote(name: string, rows = 0): Promise<void> {
    const writes = (this.#writes.get(name) ?? 0) + 1;
    this.#writes.set(name, writes);
    // A table that another process (or this one, before a restart) filled counts as compacted
    // with the rows it had: its first 32 writes here do not rewrite it whole.
    const written = this.#rowsWritten.get(name) ??
      {
        since: 0,
        compacted: largeRows(name)
          ? Math.max(0, await (await this.#table(name)).countRows() - rows)
          : 0,
      };
    written.since += rows;
    this.#rowsWritten.set(name, written);
    if (
      writes >= WRITES_PER_COMPACTION &&
      written.since >= CHUNKS_GROWTH_PER_COMPACTION * written.compacted
    ) await this.#compact(name);
  }

  /**
   * Compacts a chunks table searched with files written since its last
   * compaction, once the writes queued are done, while the search goes on:
   * indexing leaves up to a quarter of the table in small files, which every
   * read of the table opens (229 files rather than 29 took a question over
   * 100,000 passages from 26-28 ms to 32-36, its first search from 3.7 s to
   * 7.3; by key and ordinal rather than by row ids, from 43 ms to 78).
   */
  #compactForSearch(name: string): void {
    if ((this.#writes.get(name) ?? 0) < WRITES_PER_COMPACTION) return;
    this.#writes.set(name, 0);
    // A compaction that fails (a full disk) is tried again after the next writes.
    this.exclusive(() => this.#compact(name)).catch(() => {});
  }

  /**
   * Merges a table's small files, brings its indexes up to date with the rows
   * added since, and removes the files of versions older than a minute.
   */
  async #compact(name: string): Promise<void> {
    this.#writes.set(name, 0);
    const table = await this.#table(name);
    await table.optimize({ cleanupOlderThan: new Date(Date.now() - KEEP_VERSIONS_MS) });
    if (largeRows(name)) {
      this.#rowsWritten.set(name, { since: 0, compacted: await table.countRows() });
    }
  }
}

// deno-lint-ignore no-explicit-any
type Row = Record<string, any>;

/** An index waiting for the writes' turn, with what search will keep of it. */
interface QueuedIndex {
  index: NewIndex;
  link: IndexLink;
  prepared: PreparedIndex;
  written: PromiseWithResolvers<void>;
}

/** Where a chunk is: its index's key and its ordinal. */
interface ChunkPlace {
  key: string;
  ordinal: number;
}

/**
 * Whether a table's rows are large (a chunk's text and vector, an index's postings): a compaction
 * rewrites the whole table, so it waits until the table grew by a share of what it rewrote last.
 */
function largeRows(table: string): boolean {
  return table.startsWith("chunks_") || table === "postings";
}

/** The row id of a chunk not read yet: found by key and ordinal. */
const UNREAD_ROW = -1n;

/** A string as an SQL literal of LanceDB's filters (DataFusion: quotes doubled). */
function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

function chunkOf(row: Row): StoredChunk {
  return {
    key: String(row.key),
    ordinal: Number(row.ordinal),
    text: String(row.text),
    pageNumbers: JSON.parse(String(row.page_numbers)),
    numTokens: Number(row.num_tokens),
  };
}
