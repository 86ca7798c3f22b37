/**
 * The worker of `DatabaseThread`: it opens the database with `open`, then
 * runs each call on it and answers with its result or its error. It counts
 * the writes, its own and those of other processes to the same file, in a
 * `ChangeCount` it shares with the main thread.
 * @module
 */
// The file's client loads with the thread rather than when the database opens, so that a thread
// started ahead of need (`startSpareThread()`) has it ready by then.
import "./sqlite_file.ts";
import { SvcError } from "../../components/core/errors.ts";
import { ChangeCount } from "./change_count.ts";
import {
  openDatabase,
  type OpenDatabaseOptions,
  type OpenedThread,
  watchChanges,
} from "./connect.ts";
import type { Database } from "./interface.ts";
import type { Reply } from "./thread.ts";
import { parseDatabaseUrl } from "./url.ts";

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent) => void) | null;
  postMessage(data: Reply): void;
};

let database: Database | undefined;
let unwatch: (() => void) | undefined;

scope.onmessage = async (event: MessageEvent<{ id: number; method: string; args: unknown[] }>) => {
  const { id, method, args } = event.data;
  try {
    let value: unknown;
    if (method === "open") {
      const [url, options] = args as [string, OpenDatabaseOptions];
      const changes = new ChangeCount();
      database = await openDatabase(url, { ...options, thread: false, changes });
      const location = parseDatabaseUrl(url, options);
      if (location.kind === "file") unwatch = await watchChanges(location.path, changes);
      value = { name: database.name, changes: changes.buffer } satisfies OpenedThread;
    } else {
      if (method === "close") unwatch?.();
      const call =
        (database as unknown as Record<string, (...args: unknown[]) => unknown>)[method]!;
      value = await call.apply(database, args);
    }
    scope.postMessage({ id, value });
  } catch (error) {
    // Every failure of the database is an SvcError; anything else is a bug,
    // which the main thread reports as a 500 like any other.
    const status = error instanceof SvcError ? error.status : 500;
    scope.postMessage({
      id,
      error: { message: (error as Error).message ?? String(error), status },
    });
  }
};
