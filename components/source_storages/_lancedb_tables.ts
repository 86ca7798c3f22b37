/**
 * The tables of the LanceDB storage's folder, each opened (or created, with a
 * B-tree on the key of its indexes) on first use: `indexes` (one row per
 * complete index), `links` (chat, document, index), `postings` (each index's
 * postings for the full-text arm) and `chunks_<dimension>` (text, pages and
 * vector of each chunk). Each write adds a file (a fragment) that every read
 * opens until a compaction merges them: the writes are counted, and a table
 * compacted every so many.
 * @module
 */
import type * as Lance from "npm:@lancedb/lancedb@0.31.0";
import type * as Arrow from "npm:apache-arrow@18.1.0";
import { checkedDimension } from "../indexing/mod.ts";

/** The modules the backend runs on, loaded by the caller on demand. */
export interface LanceModules {
  lancedb: typeof Lance;
  arrow: typeof Arrow;
}

/** A row of a table. */
// deno-lint-ignore no-explicit-any
export type Row = Record<string, any>;

// Writes to a table between two compactions: each write adds a small file
// (a fragment), and many of them slow every scan.
const WRITES_PER_COMPACTION = 32;
// A compaction rewrites every fragment of fewer than a million rows, so the
// whole of a chunks table: one waits, beyond the writes above, until the rows
// written since are this share of those it rewrote last, so that the rows
// rewritten stay a few times those written.
const CHUNKS_GROWTH_PER_COMPACTION = 0.25;
// How long a searched version stays readable after a compaction: longer than
// any search, so that none loses its files midway.
const KEEP_VERSIONS_MS = 60_000;

/** The tables of an open LanceDB folder. */
export class LanceTables {
  readonly #db: Lance.Connection;
  readonly #modules: LanceModules;
  readonly #exclusive: <T>(fn: () => Promise<T>) => Promise<T>;
  readonly #tables = new Map<string, Promise<Lance.Table>>();
  readonly #writes = new Map<string, number>();
  // Of each chunks table: the rows written since its last compaction, and the rows it then had.
  readonly #rowsWritten = new Map<string, { since: number; compacted: number }>();

  /** The tables of `db`; `exclusive` runs a compaction in the turn of the backend's writes. */
  constructor(
    db: Lance.Connection,
    modules: LanceModules,
    exclusive: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {
    this.#db = db;
    this.#modules = modules;
    this.#exclusive = exclusive;
  }

  /** Whether the table exists (opened here, or made by anyone). */
  async has(name: string): Promise<boolean> {
    return this.#tables.has(name) || (await this.#db.tableNames()).includes(name);
  }

  /** The rows of a table that `where` (a filter of LanceDB's SQL) selects. */
  async rows(table: string, where: string): Promise<Row[]> {
    return await (await this.table(table)).query().where(where).toArray();
  }

  /** A table, opened or created (with its indexes) on first use. */
  table(name: string): Promise<Lance.Table> {
    let table = this.#tables.get(name);
    if (!table) {
      table = (async () => {
        // Opened when it exists: the schema LanceDB stores does not compare
        // equal to the one it was created with (`existOk` refuses it).
        const created = (await this.#db.tableNames()).includes(name)
          ? await this.#db.openTable(name)
          : await this.#db.createEmptyTable(name, this.schema(name)).catch(() =>
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

  /** The schema of a table. */
  schema(name: string): Arrow.Schema {
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
    const dimension = checkedDimension(Number(name.slice("chunks_".length)));
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
  async wrote(name: string, rows = 0): Promise<void> {
    const writes = (this.#writes.get(name) ?? 0) + 1;
    this.#writes.set(name, writes);
    // A table that another process (or this one, before a restart) filled counts as compacted
    // with the rows it had: its first 32 writes here do not rewrite it whole.
    const written = this.#rowsWritten.get(name) ??
      {
        since: 0,
        compacted: largeRows(name)
          ? Math.max(0, await (await this.table(name)).countRows() - rows)
          : 0,
      };
    written.since += rows;
    this.#rowsWritten.set(name, written);
    if (
      writes >= WRITES_PER_COMPACTION &&
      written.since >= CHUNKS_GROWTH_PER_COMPACTION * written.compacted
    ) await this.compact(name);
  }

  /**
   * Compacts a chunks table searched with files written since its last
   * compaction, once the writes queued are done, while the search goes on:
   * indexing leaves up to a quarter of the table in small files, which every
   * read of the table opens, a search's too.
   */
  compactForSearch(name: string): void {
    if ((this.#writes.get(name) ?? 0) < WRITES_PER_COMPACTION) return;
    this.#writes.set(name, 0);
    // A compaction that fails (a full disk) is tried again after the next writes.
    this.#exclusive(() => this.compact(name)).catch(() => {});
  }

  /**
   * Merges a table's small files, brings its indexes up to date with the rows
   * added since, and removes the files of versions older than a minute.
   */
  async compact(name: string): Promise<void> {
    this.#writes.set(name, 0);
    const table = await this.table(name);
    await table.optimize({ cleanupOlderThan: new Date(Date.now() - KEEP_VERSIONS_MS) });
    if (largeRows(name)) {
      this.#rowsWritten.set(name, { since: 0, compacted: await table.countRows() });
    }
  }
  /**
   * Deleted rows stay in the files of older versions until a compaction
   * prunes them: compact after removing indexes, so that a deleted chat's
   * text leaves the disk (at the latest at the next compaction, for rows
   * written less than a minute before).
   */
  async compactRemoved(tables: Iterable<string>): Promise<void> {
    for (const table of new Set([...tables, "postings", "indexes"])) await this.compact(table);
  }
}

/**
 * Whether a table's rows are large (a chunk's text and vector, an index's postings): a compaction
 * rewrites the whole table, so it waits until the table grew by a share of what it rewrote last.
 */
function largeRows(table: string): boolean {
  return table.startsWith("chunks_") || table === "postings";
}

/** A string as an SQL literal of LanceDB's filters (DataFusion: quotes doubled). */
export function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
