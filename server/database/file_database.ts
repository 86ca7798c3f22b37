/**
 * Opening a database file, on the database thread or in the process: its
 * folder made, WAL and incremental vacuum on, its schema brought up to date;
 * and watching it for the commits of other processes. The database thread
 * imports this alone, so that it loads neither Node's compatibility layer nor
 * the modules of the other databases.
 * @module
 */
import type { Client } from "@libsql/client";
import { quote, SvcError } from "../../components/core/errors.ts";
import { assertWritable, diskFaultError } from "../../components/disk_faults.ts";
import { redactUrls } from "../../components/core/redact_url.ts";
import { useIncrementalVacuum } from "../../components/sqlite_space.ts";
import type { ChangeCount } from "./change_count.ts";
import { LibsqlDatabase } from "./database.ts";
import { migrate } from "./migrations.ts";
import { openSqliteFile } from "./sqlite_file.ts";
import { reason } from "./steps.ts";

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
 * Runs `setUp` on a client just opened, within `timeout` milliseconds
 * (10 s by default), so that an unreachable server fails rather than hangs;
 * a failure closes the client and is told as `Cannot open the database ...`.
 */
export async function setUpWithin(
  client: Client,
  timeout: number | undefined,
  name: string,
  url: string,
  setUp: () => Promise<unknown>,
): Promise<void> {
  const ms = timeout ?? 10_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      setUp(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new SvcError(`no answer within ${ms / 1000} s`, { status: 503 })),
          ms,
        );
      }),
    ]);
  } catch (error) {
    client.close();
    throw cannotOpen(name, error, url);
  } finally {
    clearTimeout(timer);
  }
}

/** The error that opening the database `name` (from `url`) met, told in svc's words. */
export function cannotOpen(name: string, error: unknown, url: string): SvcError {
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
