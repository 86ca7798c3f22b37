/**
 * Opening a database file, on the database thread or in the process: its
 * folder made, WAL and incremental vacuum on, its schema brought up to date;
 * and watching it for the commits of other processes. The database thread
 * imports this alone, so that it loads neither Node's compatibility layer nor
 * the modules of the other databases.
 * @module
 */
import type { Client } from "@libsql/client";
import { assertWritable } from "../../components/disk_faults.ts";
import { useIncrementalVacuum } from "../../components/sqlite_space.ts";
import type { ChangeCount } from "./change_count.ts";
import { LibsqlDatabase } from "./database.ts";
import { migrate } from "./migrations.ts";
import { cannotOpen, setUpWithin } from "./opening.ts";
import { openSqliteFile } from "./sqlite_file.ts";

/**
 * How long a write to a file waits for another process's lock before failing.
 * Writes within one process are queued by {@linkcode LibsqlDatabase} and never wait here.
 */
const BUSY_TIMEOUT_MS = 5000;

/** Options of {@linkcode openFile}. */
export interface OpenFileOptions {
  /** How the database is named in messages: `sqlite:///<path>`. */
  name: string;
  /**
   * How long opening may wait, in milliseconds.
   * @default {10000}
   */
  timeout?: number;
  /** Counts the database's writes (see `ChangeCount`). */
  changes?: ChangeCount;
}

/**
 * Opens the database file at `path` (an absolute path), creating it and its
 * folders if missing, and applies the migrations it lacks.
 *
 * @throws {SvcError} naming the database: 507 or 503 for a full or read-only
 * disk, else what SQLite or the migrations refused
 */
export async function openFile(path: string, options: OpenFileOptions): Promise<LibsqlDatabase> {
  const { name } = options;
  let client: Client;
  try {
    await Deno.mkdir(parentOf(path), { recursive: true });
    // SQLite would open a file it cannot write read-only, and stay so.
    await assertWritable([path, `${path}-wal`, `${path}-shm`]);
    client = openSqliteFile(path, { timeout: BUSY_TIMEOUT_MS });
  } catch (error) {
    throw cannotOpen(name, error, name);
  }
  await setUpWithin(client, options.timeout, name, name, async () => {
    // Before WAL, which writes the new file's first page: deletions give space back.
    await useIncrementalVacuum(client);
    // WAL lets the API read while it writes, and stays set in the file.
    await client.execute("PRAGMA journal_mode = WAL");
    await migrate(client, { name });
  });
  return new LibsqlDatabase(client, { name, reclaimSpace: true, changes: options.changes });
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

/** The folder of an absolute path, on any system, without `node:path` (see the module doc). */
function parentOf(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return cut <= 0 ? path.slice(0, cut + 1) || "." : path.slice(0, cut);
}
