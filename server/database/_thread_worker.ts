/**
 * The worker of `DatabaseThread`: it opens a database file with `open`, then
 * runs each call on it and answers with its result or its error. It counts
 * the writes, its own and those of other processes to the same file, in a
 * `ChangeCount` it shares with the main thread.
 * @module
 */
import { SvcError } from "../../components/core/errors.ts";
import { ChangeCount } from "./change_count.ts";
import { openFile, type OpenFileOptions, watchChanges } from "./file_database.ts";
import type { Database } from "./interface.ts";
import type { OpenedThread, Reply } from "./thread.ts";

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
      const [path, options] = args as [string, OpenFileOptions];
      const changes = new ChangeCount();
      database = await openFile(path, { ...options, changes });
      unwatch = await watchChanges(path, changes);
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
