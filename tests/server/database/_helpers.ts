/**
 * Builders of records and databases shared by the database tests, which run
 * each behaviour on every kind of database: a libSQL file, libSQL in memory,
 * and PostgreSQL when it is installed (always in CI; see tests/_postgres.ts)
 * and the tier is not the unit tier (see tests/_tier.ts).
 */
import { SvcError } from "../../../components/core/errors.ts";
import {
  type ChatRecord,
  type Database,
  type DocumentRecord,
  type MessageRecord,
  openDatabase,
  type SourceRecord,
  type StoredDocument,
} from "../../../server/database/mod.ts";
import { openSqliteFile } from "../../../server/database/sqlite_file.ts";
import { tmpDir } from "../../test_utils.ts";
import { connect, findPostgres, postgresRequired, sharedCluster } from "../../_postgres.ts";
import { unitTier } from "../../_tier.ts";

/** The kinds of database every behaviour is checked on. */
export type Kind = "file" | "memory" | "postgres";

const withPostgres = !unitTier() && (findPostgres() !== undefined || postgresRequired());
if (!withPostgres && !unitTier()) {
  console.warn(
    "The database tests run on libSQL only: no PostgreSQL is installed (apt-get install " +
      "postgresql-15); set SVC_REQUIRE_POSTGRES=1 to make this a failure",
  );
}

/** The kinds of database every behaviour is checked on: PostgreSQL's when it is installed, but for the unit tier. */
export const KINDS: readonly Kind[] = withPostgres
  ? ["file", "memory", "postgres"]
  : ["file", "memory"];

/** A fresh database of one kind, and how to count its rows. */
export interface FreshDatabase extends AsyncDisposable {
  db: Database;
  /** The file of a file database. */
  path?: string;
  /** The number of rows of each table, read apart from `db`; none for a database in memory. */
  rows?: () => Promise<Record<string, number>>;
}

/** A fresh database of the kind, closed and removed when disposed. */
export async function freshDatabase(kind: Kind): Promise<FreshDatabase> {
  const dir = await tmpDir();
  if (kind === "postgres") {
    const cluster = await sharedCluster();
    const database = await cluster.database();
    const db = await openDatabase(database.url, { localRoot: dir.path });
    return {
      db,
      rows: () => countPostgresRows(database.url),
      [Symbol.asyncDispose]: async () => {
        await db.close();
        await cluster.drop(database);
        await dir[Symbol.asyncDispose]();
      },
    };
  }
  const path = `${dir.path}/svc.db`;
  const db = await openDatabase(kind === "file" ? `sqlite:///${path}` : "sqlite://", {
    localRoot: dir.path,
  });
  return {
    db,
    path: kind === "file" ? path : undefined,
    rows: kind === "file" ? () => countRows(path) : undefined,
    [Symbol.asyncDispose]: async () => {
      await db.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

const TABLES = [
  "users",
  "documents",
  "chats",
  "chat_documents",
  "messages",
  "sources",
  "message_sources",
];

/**
 * The number of rows of each table of a file database, read with a client of its own: through
 * the SQLite the database itself uses, since two copies of SQLite in one process on one file
 * release each other's locks.
 */
export async function countRows(path: string): Promise<Record<string, number>> {
  // See `sql()` in connect_test.ts: the locks of a closed database go a moment later.
  const client = openSqliteFile(path, { timeout: 5000 });
  try {
    const counts: Record<string, number> = {};
    for (const table of TABLES) {
      const { rows } = await client.execute(`SELECT COUNT(*) AS n FROM ${table}`);
      counts[table] = Number(rows[0]!.n);
    }
    return counts;
  } finally {
    client.close();
  }
}

/** The number of rows of each table of a PostgreSQL database, read with a client of its own. */
async function countPostgresRows(url: string): Promise<Record<string, number>> {
  const sql = await connect(url);
  try {
    const counts: Record<string, number> = {};
    for (const table of TABLES) {
      const [row] = await sql`SELECT COUNT(*) AS n FROM ${sql(table)}`;
      counts[table] = Number(row!.n);
    }
    return counts;
  } finally {
    await sql.end();
  }
}

/** A document with metadata, as an upload stores it. */
export function document(id: string, name = `${id}.md`): StoredDocument {
  return { id, name, metadata: { path: `/uploads/${id}/${name}` } };
}

/** A source of the document. */
export function source(id: string, of: DocumentRecord, content = `Passage ${id}`): SourceRecord {
  return { id, document: { id: of.id, name: of.name }, location: "1-3, 5", content, num_tokens: 7 };
}

let clock = Date.UTC(2026, 10, 26, 1, 2, 3, 456);

/** A message; timestamps go up by a millisecond unless `timestamp` is given. */
export function message(
  id: string,
  options: Partial<Omit<MessageRecord, "id">> = {},
): MessageRecord {
  return {
    id,
    content: options.content ?? `Content of ${id}`,
    role: options.role ?? "user",
    sources: options.sources ?? [],
    timestamp: options.timestamp ?? new Date(clock++).toISOString(),
    citations: options.citations ?? [],
  };
}

/** A chat over the documents. */
export function chat(
  id: string,
  documents: DocumentRecord[],
  extra: Partial<ChatRecord> = {},
): ChatRecord {
  return {
    id,
    metadata: {
      name: `Chat ${id}`,
      source_storage: "Svc/DemoSourceStorage",
      assistant: "Svc/DemoAssistant",
      params: { chunk_size: 500, nested: { list: [1, "two", null], flag: true } },
      documents: documents.map(({ id, name }) => ({ id, name })),
    },
    messages: [],
    prepared: false,
    ...extra,
  };
}

/** A predicate for `assert.rejects`: an `SvcError` with the status whose message matches. */
export function svcError(status: number, pattern: RegExp | string): (error: unknown) => boolean {
  return (error: unknown): boolean => {
    if (!(error instanceof SvcError)) throw error;
    if (error.status !== status) {
      throw new Error(`Expected status ${status}, got ${error.status}: ${error.message}`);
    }
    const matches = typeof pattern === "string"
      ? error.message === pattern
      : pattern.test(error.message);
    if (!matches) throw new Error(`Unexpected message: ${error.message}`);
    return true;
  };
}
