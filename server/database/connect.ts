/**
 * Opening the database that `database_url` names, and bringing its schema up
 * to date.
 * @module
 */
import type { Client } from "@libsql/client";
import { join } from "../../components/core/paths.ts";
import { redactUrl } from "../../components/core/redact_url.ts";
import { secrets } from "../../components/core/secrets.ts";
import { ChangeCount } from "./change_count.ts";
import { LibsqlDatabase } from "./database.ts";
import { cannotOpen, setUpWithin } from "./opening.ts";
import type { Database } from "./interface.ts";
import { migrate } from "./migrations.ts";
import { databaseThread, type OpenedThread } from "./thread.ts";
import { type DatabaseLocation, parseDatabaseUrl } from "./url.ts";

/**
 * PostgreSQL's database, imported by a name Deno does not read ahead, so that a server on a file
 * never prepares its modules (`deploy/compile.ts` includes it). libSQL's client keeps a literal
 * import: a package published to JSR resolves no bare name that its code does not spell out.
 */
export const POSTGRES = "./postgres_connect.ts";

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
   * The token for a libSQL server: the server gives env `SVC_API_DATABASE_AUTH_TOKEN`.
   * @default {none}
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
}

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
    const { openPostgres }: typeof import("./postgres_connect.ts") = await import(POSTGRES);
    return await openPostgres(url, {
      timeout: options.timeout,
      files: join(options.localRoot, "documents"),
    });
  }
  if (location.kind === "file") {
    // A file is named by its absolute URL: what the user wrote when it was
    // absolute, and the file it resolved to when it was relative.
    const name = `sqlite:///${location.path}`;
    if (options.thread ?? true) return await openThread(location.path, name, options);
    // Loaded here: the main thread of a file's database, the thread's, never loads Deno's SQLite.
    const { openFile } = await import("./file_database.ts");
    return await openFile(location.path, { name, timeout: options.timeout });
  }
  const name = redactUrl(url);
  secrets.addUrl(url);
  let client: Client;
  try {
    client = await createFor(location, options);
  } catch (error) {
    throw cannotOpen(name, error, url);
  }
  await setUpWithin(client, options.timeout, name, url, () => migrate(client, { name }));
  // In memory, no other process writes: this database's own writes are every change.
  const memory = location.kind === "memory";
  return new LibsqlDatabase(client, {
    name,
    singleConnection: memory,
    changes: memory ? new ChangeCount() : undefined,
    cacheReads: memory,
  });
}

async function openThread(path: string, name: string, options: OpenDatabaseOptions) {
  const thread = databaseThread();
  try {
    const opened = await thread.call("open", [
      path,
      { name, timeout: options.timeout },
    ]) as OpenedThread;
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
  location: Exclude<DatabaseLocation, { kind: "postgres" | "file" }>,
  options: OpenDatabaseOptions,
): Promise<Client> {
  // Loaded here: a file is opened with Deno's own SQLite (see sqlite_file.ts).
  const { createClient } = await import("@libsql/client");
  if (location.kind === "memory") return createClient({ url: ":memory:" });
  const authToken = options.authToken;
  secrets.add(authToken);
  return createClient({ url: location.url, authToken });
}
