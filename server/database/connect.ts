/**
 * Opening the database that `database_url` names, and bringing its schema up
 * to date.
 * @module
 */
import type { Client } from "@libsql/client";
import { dirname, join } from "node:path";
import { quote, SvcError } from "../../components/core/errors.ts";
import { envVar } from "../../components/core/requirements.ts";
import { assertWritable, diskFaultError } from "../../components/disk_faults.ts";
import { redactUrl, redactUrls } from "../../components/core/redact_url.ts";
import { useIncrementalVacuum } from "../../components/sqlite_space.ts";
import { ChangeCount } from "./change_count.ts";
import { LibsqlDatabase } from "./database.ts";
import type { Database } from "./interface.ts";
import { migrate } from "./migrations.ts";
import { reason } from "./steps.ts";
import { databaseThread } from "./thread.ts";
import { type DatabaseLocation, parseDatabaseUrl } from "./url.ts";

/** Options of {@linkcode openDatabase}. */
export interface OpenDatabaseOptions {
  /** The local root: an empty URL means `<localRoot>/svc.db`. */
  localRoot: string;
  /**
   * The folder that `sqlite:///relative/path` is relative to.
   * @default {Deno.cwd()}
   */
  base?: string;
  /**
   * The token for a libSQL server.
   * @default {Deno.env.get("SVC_API_DATABASE_AUTH_TOKEN")}
   */
  authToken?: string;
  /**
   * How long opening may wait for the database to answer, in milliseconds,
   * so that an unreachable server fails rather than hangs.
   * @default {10000}
   */
  timeout?: number;
  /**
   * Whether SQLite runs on a worker thread, so that its queries and its waits
   * for the disk never hold up the event loop (see `DatabaseThread`).
   * @default {true for a file, false otherwise}
   */
  thread?: boolean;
  /** Counts the database's writes: the database thread's count, which the main thread reads. */
  changes?: ChangeCount;
}

/** What the database thread answers to `open`. */
export interface OpenedThread {
  /** The database's name. */
  name: string;
  /** The memory of its {@linkcode ChangeCount}. */
  changes: SharedArrayBuffer;
}

/**
 * How long a write to a file waits for another process's lock before failing.
 * Writes within one process are queued by {@linkcode LibsqlDatabase} and never wait here.
 */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens the database that `url` names (a `database_url` of the configuration)
 * and applies the migrations it lacks. Parent folders of a file are created.
 * An unknown scheme, `memory`, an unreachable server, or a database that is
 * not this svc's is refused with an `SvcError` that says what to do.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openDatabase } from "./mod.ts";
 * const db = await openDatabase("sqlite://", { localRoot: "." });
 * assert((await db.listChats("ada")).length === 0);
 * await db.close();
 * ```
 */
export async function openDatabase(url: string, options: OpenDatabaseOptions): Promise<Database> {
  const location = parseDatabaseUrl(url, options);
  if (location.kind === "postgres") {
    // Loaded here: a libSQL database, and its thread, never load PostgreSQL's modules.
    const { openPostgres } = await import("./postgres_connect.ts");
    return await openPostgres(url, {
      timeout: options.timeout,
      files: join(options.localRoot, "documents"),
    });
  }
  // A file is named by its absolute URL: what the user wrote when it was
  // absolute, and the file it resolved to when it was relative.
  const name = location.kind === "file" ? `sqlite:///${location.path}` : redactUrl(url);
  const file = location.kind === "file";
  if (options.thread ?? file) {
    return await openThread(location.kind === "file" ? name : url, options);
  }
  let client: Client;
  try {
    client = await createFor(location, options);
  } catch (error) {
    throw cannotOpen(name, error, url);
  }
  const timeout = options.timeout ?? 10_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      setUp(client, location, name),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new SvcError(`no answer within ${timeout / 1000} s`, { status: 503 })),
          timeout,
        );
      }),
    ]);
  } catch (error) {
    client.close();
    throw cannotOpen(name, error, url);
  } finally {
    clearTimeout(timer);
  }
  // In memory, no other process writes: this database's own writes are every change.
  const memory = location.kind === "memory";
  return new LibsqlDatabase(client, {
    name,
    singleConnection: memory,
    reclaimSpace: file,
    changes: memory ? new ChangeCount() : options.changes,
    cacheReads: memory,
  });
}

async function openThread(url: string, options: OpenDatabaseOptions): Promise<Database> {
  const thread = databaseThread();
  try {
    const opened = await thread.call("open", [url, { ...options, thread: false }]) as OpenedThread;
    return new LibsqlDatabase(thread, {
      name: opened.name,
      changes: new ChangeCount(opened.changes),
      cacheReads: true,
    });
  } catch (error) {
    thread.terminate();
    throw error;
  }
}

async function createFor(
  location: Exclude<DatabaseLocation, { kind: "postgres" }>,
  options: OpenDatabaseOptions,
): Promise<Client> {
  switch (location.kind) {
    case "memory": {
      // Loaded here: a file is opened with Deno's own SQLite (see sqlite_file.ts).
      const { createClient } = await import("@libsql/client");
      return createClient({ url: ":memory:" });
    }
    case "file": {
      await Deno.mkdir(dirname(location.path), { recursive: true });
      // SQLite would open a file it cannot write read-only, and stay so.
      await assertWritable([location.path, `${location.path}-wal`, `${location.path}-shm`]);
      const { openSqliteFile } = await import("./sqlite_file.ts");
      return openSqliteFile(location.path, { timeout: BUSY_TIMEOUT_MS });
    }
    case "server": {
      const { createClient } = await import("@libsql/client");
      return createClient({
        url: location.url,
        authToken: options.authToken ?? envVar("SVC_API_DATABASE_AUTH_TOKEN"),
      });
    }
  }
}

async function setUp(client: Client, location: DatabaseLocation, name: string): Promise<void> {
  if (location.kind === "file") {
    // Before WAL, which writes the new file's first page: deletions give space back.
    await useIncrementalVacuum(client);
    // WAL lets the API read while it writes, and stays set in the file. libSQL
    // turns foreign keys on for every connection it opens; this says so for
    // the first one in case a build does not.
    await client.execute("PRAGMA journal_mode = WAL");
    await client.execute("PRAGMA foreign_keys = ON");
  }
  await migrate(client, { name });
}

/**
 * How often a database thread looks for commits that another process made to
 * its file, in milliseconds: what it read before is given again for at most
 * this long after such a commit.
 */
export const WATCH_INTERVAL_MS = 100;

/**
 * Counts in `changes` the commits that other processes (`svc user`, `svc
 * mcp`) make to the database file at `path`, looked for every
 * {@linkcode WATCH_INTERVAL_MS}. SQLite's `data_version` moves on a
 * connection whenever another one commits, so it is read on a connection of
 * its own, which this process's writes move too. Returns what stops it.
 */
export async function watchChanges(path: string, changes: ChangeCount): Promise<() => void> {
  const { openSqliteFile } = await import("./sqlite_file.ts");
  const client = openSqliteFile(path, { timeout: BUSY_TIMEOUT_MS });
  let seen: unknown;
  let busy = false;
  const look = async () => {
    if (busy) return;
    busy = true;
    try {
      const { rows } = await client.execute("PRAGMA data_version");
      const version = rows[0]?.[0];
      if (seen !== undefined && version !== seen) changes.bump();
      seen = version;
    } catch {
      // Unread, it may have moved.
      seen = undefined;
      changes.bump();
    } finally {
      busy = false;
    }
  };
  await look();
  const timer = setInterval(look, WATCH_INTERVAL_MS);
  return () => {
    clearInterval(timer);
    client.close();
  };
}

function cannotOpen(name: string, error: unknown, url: string): SvcError {
  // The migrations' own refusals already name the database and say what to do.
  if (error instanceof SvcError && error.message.startsWith("Cannot open the database")) {
    return error;
  }
  const fault = diskFaultError(`Cannot open the database ${quote(name)}`, error);
  if (fault) return fault;
  // The client may quote a part of the URL apart from it: its fragment, a value of its query.
  const why = redactUrls(reason(error), { secretsOf: [url] });
  return new SvcError(`Cannot open the database ${quote(name)}: ${why}`, {
    status: error instanceof SvcError ? error.status : 500,
    cause: error,
  });
}
