/**
 * A database file served from a worker thread. The libSQL client of a file is
 * synchronous: on the main thread every query, and every commit's wait for the
 * disk (several milliseconds, far more on a busy disk), would hold up every
 * other request, `/health` included.
 * @module
 */
import { SvcError } from "../../components/core/errors.ts";

/** What the worker answers to a call. */
export type Reply =
  | { id: number; value: unknown }
  | { id: number; error: { message: string; status: number } };

/** What the database thread answers to `open`. */
export interface OpenedThread {
  /** The database's name. */
  name: string;
  /** The memory of its `ChangeCount`. */
  changes: SharedArrayBuffer;
}

/** The main thread's end of a database on a worker: calls go in order, each answered once. */
export class DatabaseThread {
  readonly #worker: Worker;
  readonly #calls = new Map<number, PromiseWithResolvers<unknown>>();
  #next = 0;
  // Set once the worker is gone: every later call fails with it.
  #failure: SvcError | undefined;

  constructor() {
    this.#worker = new Worker(new URL("./_thread_worker.ts", import.meta.url), {
      type: "module",
    });
    this.#worker.onmessage = (event: MessageEvent<Reply>) => {
      const reply = event.data;
      const call = this.#calls.get(reply.id);
      this.#calls.delete(reply.id);
      if ("error" in reply) {
        call?.reject(new SvcError(reply.error.message, { status: reply.error.status }));
      } else {
        call?.resolve(reply.value);
      }
    };
    this.#worker.onerror = (event) => {
      event.preventDefault();
      this.#fail(new SvcError(`The database thread failed: ${event.message}`));
    };
  }

  /** Calls the method of the worker's `Database` (or `open`) with the arguments. */
  call(method: string, args: unknown[] = []): Promise<unknown> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#next++;
    const call = Promise.withResolvers<unknown>();
    this.#calls.set(id, call);
    this.#worker.postMessage({ id, method, args });
    return call.promise;
  }

  /** Ends the worker; calls still waiting fail. */
  terminate(): void {
    this.#worker.terminate();
    this.#fail(new SvcError("The database thread was stopped", { status: 503 }));
  }

  #fail(error: SvcError): void {
    this.#failure ??= error;
    for (const call of this.#calls.values()) call.reject(error);
    this.#calls.clear();
  }
}

/** A thread started ahead of need, not yet taken. */
let spare: DatabaseThread | undefined;

/**
 * Starts a database thread ahead of need, so that it loads its modules (libSQL's client among them)
 * while the caller loads its own; the next database of a file that opens takes it. Whoever starts
 * one ends it with {@linkcode endSpareThread} once the database is open or will not be.
 */
export function startSpareThread(): void {
  spare ??= new DatabaseThread();
}

/** The thread started ahead, else a new one. */
export function databaseThread(): DatabaseThread {
  const thread = spare ?? new DatabaseThread();
  spare = undefined;
  return thread;
}

/** Ends the thread started ahead when no database took it, so that it keeps no process alive. */
export function endSpareThread(): void {
  spare?.terminate();
  spare = undefined;
}
