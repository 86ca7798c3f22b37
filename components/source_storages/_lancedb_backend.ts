/**
 * The indexes of the LanceDB source storage in a LanceDB folder (its tables
 * in `_lancedb_tables.ts`): how it writes indexes and links, removes those no
 * chat links to, and reads what retrieval ranks (`_lancedb_reads.ts`).
 * Retrieval ranks a chat's chunks in memory (`retrieval/index_search.ts`)
 * with svc's own BM25, not LanceDB's full-text search, whose words ranked the
 * labelled set worse and whose term statistics are the whole table's. No ANN
 * (IVF-PQ) index, on purpose: training one over a large table takes minutes,
 * no wait to put behind an upload, and one over all chats answers a chat's
 * query from partitions that mostly hold other chats' chunks.
 *
 * LanceDB has no transactions: the writes of one process go one at a time
 * (`SerialBackend`, which also keeps the links), which makes storing an index
 * and linking it one step, and every write checks what it depends on first.
 * The indexes added while a write is under way are written together at the
 * next turn: a table's write costs some milliseconds however few its rows,
 * and is made once for them all. Several processes may read one folder
 * (strong read consistency); only one should write at a time.
 * @module
 */
import type * as Lance from "npm:@lancedb/lancedb@0.31.0";
import {
  IndexSearch,
  type IndexSearchOptions,
  type PreparedIndex,
  type WordsKept,
} from "../retrieval/mod.ts";
import { chunkRows } from "./_lance_chunk_rows.ts";
import { chunksOf, passagesAt, readIndexes, UNREAD_ROW } from "./_lancedb_reads.ts";
import { LanceTables, literal } from "./_lancedb_tables.ts";
import type { LanceModules } from "./_lancedb_tables.ts";
import {
  type IndexInfo,
  indexInfoOf,
  type IndexLink,
  indexRecord,
  KeptLinks,
  linkName,
  type NewIndex,
  type SearchQuery,
  SerialBackend,
  type StoredChunk,
  type StoredLink,
  WriteBatches,
} from "../indexing/mod.ts";

export type { LanceModules } from "./_lancedb_tables.ts";

// How stale a chat's links may be to another process's writes (this process's are seen at once).
const OTHERS_WRITES_MS = 100;
// Indexes stored whose postings are written in one go: each write of the postings table adds a
// file, and a compaction rewrites it whole.
const POSTINGS_PER_WRITE = 64;

/** The tables of an open LanceDB folder. */
export class LanceDBBackend extends SerialBackend {
  readonly #modules: LanceModules;
  readonly #tables: LanceTables;
  // Each chat's links as last read, and the versions of the two tables they were read at.
  readonly #links = new KeptLinks<IndexInfo>();
  // The tables' versions as last read, and when; whether this process wrote since.
  #versionsRead: { at: number; versions: string } | undefined;
  #wroteSince = false;
  readonly #search: IndexSearch<string, BigInt64Array>;
  // The indexes added while others are written, written together at the writes' next turn.
  readonly #batches = new WriteBatches<QueuedIndex>(
    (batch) => this.#write(batch),
    (write) => this.exclusive(write),
  );
  // The postings of the indexes stored since they were last written, by key.
  readonly #postings = new Map<string, Uint8Array>();

  private constructor(
    db: Lance.Connection,
    modules: LanceModules,
    passageMemory: number | undefined,
  ) {
    super();
    this.#modules = modules;
    this.#tables = new LanceTables(db, modules, (fn) => this.exclusive(fn));
    this.#search = new IndexSearch({
      fullText: "svc",
      passageMemory,
      reads: {
        indexes: (keys, { dimension, postings }) =>
          readIndexes(this.#tables, keys, dimension, postings),
        passages: (chunks, dimension) => passagesAt(this.#tables, chunks, dimension),
        keepPostings: async (built) => {
          const rows = built.map(({ id, data }) => ({ key: id, data }));
          await (await this.#tables.table("postings")).add(rows);
        },
      },
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
    { passageMemory }: Pick<IndexSearchOptions<string, undefined>, "passageMemory"> = {},
  ): Promise<LanceDBBackend> {
    // Reads check for other processes' writes: a server and a command may share a folder.
    const db = await modules.lancedb.connect(path, { readConsistencyInterval: 0 });
    const backend = new LanceDBBackend(db, modules, passageMemory);
    await Promise.all([backend.#tables.table("indexes"), backend.#tables.table("links")]);
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
    // Given back when not kept by the write.
    using prepared = await this.#search.prepare(index, { extra: rowIds });
    await this.#batches.add({ index, link, prepared });
  }

  /** Writes indexes queued, each linked to its chat's document (see add()). */
  async #write(batch: readonly QueuedIndex[]): Promise<void> {
    const fresh = await this.storeAll(batch, {
      write: (fresh) => this.#writeIndexes(fresh),
      // Not left half stored: an index without its chunks would be linked to by the next store.
      remove: (fresh) => this.#removeIndexes(fresh),
    });
    if (fresh.length === 0) return;
    for (const [dimension, indexes] of Map.groupBy(fresh, ({ index }) => index.dimension)) {
      const rows = indexes.reduce((sum, { index }) => sum + index.chunks.length, 0);
      await this.#tables.wrote(`chunks_${dimension}`, rows);
    }
    await this.#tables.wrote("indexes");
    const kept = fresh.filter(({ index }) => index.chunks.length > 0);
    for (const { index, prepared } of kept) {
      prepared.keep(index.key);
      this.#postings.set(index.key, prepared.postings());
    }
    if (this.#postings.size >= POSTINGS_PER_WRITE) await this.#writePostings({ counted: true });
  }

  /** Writes the chunks of indexes, then their rows, which make them complete. */
  async #writeIndexes(fresh: readonly QueuedIndex[]): Promise<void> {
    for (const [dimension, indexes] of Map.groupBy(fresh, ({ index }) => index.dimension)) {
      const chunks = await this.#tables.table(`chunks_${dimension}`);
      // The rows of builds that crashed before they were complete.
      if (await chunks.countRows(keyIn(indexes)) > 0) await chunks.delete(keyIn(indexes));
      const rows = indexes.filter(({ index }) => index.chunks.length > 0);
      // LanceDB refuses to add no rows: a document without text has none.
      if (rows.length > 0) {
        const schema = this.#tables.schema(`chunks_${dimension}`);
        await chunks.add(
          await chunkRows(this.#modules.lancedb, schema, rows.map(({ index }) => index)),
        );
      }
    }
    await (await this.#tables.table("indexes")).add(fresh.map(({ index }) => indexRecord(index)));
  }

  /** Removes what was written of indexes, their chunks and rows. */
  async #removeIndexes(fresh: readonly QueuedIndex[]): Promise<void> {
    for (const dimension of new Set(fresh.map(({ index }) => index.dimension))) {
      await (await this.#tables.table(`chunks_${dimension}`)).delete(keyIn(fresh)).catch(() => {});
    }
    await (await this.#tables.table("indexes")).delete(keyIn(fresh));
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
    await this.#tables.table("postings").then((table) => table.add(rows))
      .then(() => counted ? this.#tables.wrote("postings", rows.length) : undefined).catch(
        () => {},
      );
  }

  async search(
    keys: readonly string[],
    query: SearchQuery,
  ): Promise<(StoredChunk & WordsKept)[][]> {
    const name = `chunks_${query.vector.length}`;
    if (keys.length === 0) return [[], []];
    // Made by the first index of its dimension: none yet, nothing to find.
    if (!(await this.#tables.has(name))) return [[], []];
    await this.#tables.table(name);
    this.#tables.compactForSearch(name);
    if (this.#postings.size > 0) await this.#writePostings();

    query.signal?.throwIfAborted();
    return await this.#search.search(keys, query);
  }

  async chunks(key: string): Promise<StoredChunk[]> {
    const info = (await this.infos([key])).get(key);
    return info ? await chunksOf(this.#tables, key, info.dimension) : [];
  }

  /**
   * A chat's links, read again only when the links or the indexes changed
   * since: two reads of the tables' versions (which see every process's
   * writes) rather than two queries. The versions are read after each write
   * of this process, else at most every {@linkcode OTHERS_WRITES_MS}, which
   * a small chat's question would feel.
   */
  override async links(chatId: string): Promise<Map<string, IndexInfo>> {
    return await this.#links.read(chatId, await this.#versions(), () => super.links(chatId));
  }

  /** The versions of the links and indexes tables, as last read (see `links()`). */
  async #versions(): Promise<string> {
    const now = performance.now();
    if (this.#versionsRead && !this.#wroteSince && now - this.#versionsRead.at < OTHERS_WRITES_MS) {
      return this.#versionsRead.versions;
    }
    // Cleared before the read: a write that ends during it is read again next time.
    this.#wroteSince = false;
    const tables = await Promise.all([this.#tables.table("links"), this.#tables.table("indexes")]);
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
    const rows = await this.#tables.rows("links", `chat_id = ${literal(chatId)}`);
    return rows.map((row) => ({ documentId: String(row.document_id), key: String(row.key) }));
  }

  protected override async linkedKeys(links: readonly IndexLink[]): Promise<Map<string, string>> {
    const chats = [...new Set(links.map((link) => link.chatId))].map(literal).join(", ");
    const documents = [...new Set(links.map((link) => link.documentId))].map(literal).join(", ");
    const rows = await this.#tables.rows(
      "links",
      `chat_id IN (${chats}) AND document_id IN (${documents})`,
    );
    return new Map(rows.map((row) => [
      linkName({ chatId: row.chat_id, documentId: row.document_id }),
      String(row.key),
    ]));
  }

  protected override async writeLinks(
    links: readonly IndexLink[],
    { replaces }: { replaces: boolean },
  ): Promise<void> {
    const rows = links.map((link) => ({
      chat_id: link.chatId,
      document_id: link.documentId,
      key: link.key,
    }));
    const table = await this.#tables.table("links");
    // A merge joins the table with the rows, slower than adding them: only when they replace.
    if (replaces) {
      await table.mergeInsert(["chat_id", "document_id"])
        .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
    } else await table.add(rows);
    await this.#tables.wrote("links");
  }

  protected override async deleteLinks(chatId: string): Promise<void> {
    await (await this.#tables.table("links")).delete(`chat_id = ${literal(chatId)}`);
    await this.#tables.wrote("links");
  }

  protected override async removeOrphans(keys: Iterable<string>): Promise<void> {
    const emptied = new Set<string>();
    for (const key of keys) {
      const table = await this.#removeIfOrphan(key);
      if (table) emptied.add(table);
    }
    if (emptied.size > 0) await this.#tables.compactRemoved(emptied);
  }

  /**
   * Removes an index that no chat links to any more, with its chunks; gives
   * the name of the chunks table it removed them from.
   */
  async #removeIfOrphan(key: string): Promise<string | undefined> {
    const where = `key = ${literal(key)}`;
    if (await (await this.#tables.table("links")).countRows(where) > 0) return undefined;
    const info = (await this.infos([key])).get(key);
    if (!info) return undefined;
    const chunks = `chunks_${info.dimension}`;
    this.#postings.delete(key);
    await (await this.#tables.table(chunks)).delete(where);
    await (await this.#tables.table("postings")).delete(where);
    await (await this.#tables.table("indexes")).delete(where);
    return chunks;
  }

  protected override async infos(keys: readonly string[]): Promise<Map<string, IndexInfo>> {
    if (keys.length === 0) return new Map();
    const rows = await this.#tables.rows(
      "indexes",
      `key IN (${[...new Set(keys)].map(literal).join(", ")})`,
    );
    return new Map(rows.map((row) => [String(row.key), indexInfoOf(row)]));
  }
}

/** LanceDB's filter of the rows of the indexes of `queued`. */
function keyIn(queued: readonly QueuedIndex[]): string {
  return `key IN (${queued.map(({ index }) => literal(index.key)).join(", ")})`;
}

/** An index waiting for the writes' turn, with what search will keep of it. */
interface QueuedIndex {
  index: NewIndex;
  link: IndexLink;
  prepared: PreparedIndex;
}
