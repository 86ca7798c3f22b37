/**
 * The reader threads, where svc parses every document it reads, never on the thread that answers
 * requests: a hostile or merely huge file then costs one thread's memory and time, not the
 * server's. Each thread parses one document at a time with a capped heap (`resourceLimits`) and a
 * deadline; a thread that passes either is ended, its document refused with a 422 that says which
 * it passed, and the documents after it get a new thread. Idle threads stay for the next document
 * without keeping a process alive.
 *
 * A compiled svc needs the thread's module in the binary:
 * `deno compile --include components/documents/_reader_worker.ts`.
 * @module
 */
import { Worker } from "node:worker_threads";
import { quote, SvcError, unreadable } from "../core/errors.ts";
import type { Page } from "../core/page.ts";
import { type ReaderSettings, readerSettings } from "../core/reader_settings.ts";
import type { ContentOf } from "./content.ts";
import type { DocumentView } from "./views.ts";

/**
 * What a reader thread is sent: one document's content, as an `ArrayBuffer` of its bytes alone,
 * which `node:worker_threads` copies in a moment, where it takes half a second over the same bytes
 * in a `Uint8Array`.
 */
export interface ReadRequest {
  id: number;
  buffer: ArrayBuffer;
  content: ContentOf;
  /** What to make of it: its pages (`parsePages`) or its view (`renderView`). */
  task: "pages" | "view";
}

/**
 * What a reader thread answers: a document's pages or view, or its error, or that it passed its
 * heap cap.
 */
export type ReadReply =
  | { id: number; pages: Page[] }
  | { id: number; view: DocumentView }
  | { id: number; error: { message: string; status: number } }
  | { memory: true };

/** A document waiting for a thread, or being read in one. */
interface Job {
  id: number;
  bytes: Uint8Array;
  content: ContentOf;
  task: ReadRequest["task"];
  resolve(result: Page[] | DocumentView): void;
  reject(error: unknown): void;
  signal?: AbortSignal;
  onAbort(): void;
  thread?: ReaderThread;
}

/**
 * Reader threads sharing a queue of documents.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ReaderPool } from "./reader_pool.ts";
 * await using pool = new ReaderPool({ threads: 1, heapMb: 256, timeoutSeconds: 60 });
 * const bytes = new TextEncoder().encode("# Notes\n");
 * const pages = await pool.read(bytes, { name: "notes.md", format: ".md", maxSize: 1024 });
 * assert.deepEqual(pages, [{ text: "# Notes\n", number: null }]);
 * ```
 */
export class ReaderPool implements AsyncDisposable {
  readonly #settings: ReaderSettings;
  readonly #threads = new Set<ReaderThread>();
  readonly #queue: Job[] = [];
  #nextId = 0;

  /** A pool of the settings given, the others from the environment (`readerSettings()`). */
  constructor(settings: Partial<ReaderSettings> = {}) {
    this.#settings = { ...readerSettings(), ...settings };
  }

  /** The pool's settings. */
  get settings(): Readonly<ReaderSettings> {
    return this.#settings;
  }

  /** How many threads run now, reading or idle. */
  get size(): number {
    return this.#threads.size;
  }

  /**
   * The pages of a document's content, parsed in a reader thread as `parsePages` parses them,
   * once a thread is free.
   *
   * @throws {SvcError} as `parsePages` does; 422 naming the document when its thread passed its
   * heap cap or its deadline; 500 when the thread stopped otherwise; the signal's reason once it
   * is aborted, which also ends the thread that reads it
   */
  read(
    bytes: Uint8Array,
    content: ContentOf,
    options: { signal?: AbortSignal } = {},
  ): Promise<Page[]> {
    return this.#run(bytes, content, "pages", options) as Promise<Page[]>;
  }

  /**
   * The view of a document's content, rendered in a reader thread as `renderView` renders it,
   * once a thread is free, within the same limits as {@linkcode ReaderPool.read}.
   *
   * @throws {SvcError} as {@linkcode ReaderPool.read} does
   */
  view(
    bytes: Uint8Array,
    content: ContentOf,
    options: { signal?: AbortSignal } = {},
  ): Promise<DocumentView> {
    return this.#run(bytes, content, "view", options) as Promise<DocumentView>;
  }

  #run(
    bytes: Uint8Array,
    content: ContentOf,
    task: ReadRequest["task"],
    options: { signal?: AbortSignal },
  ): Promise<Page[] | DocumentView> {
    const { signal } = options;
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const job: Job = {
        id: this.#nextId++,
        bytes,
        content,
        task,
        resolve,
        reject,
        signal,
        onAbort: () => this.#abort(job),
      };
      signal?.addEventListener("abort", job.onAbort, { once: true });
      this.#queue.push(job);
      this.#dispatch();
    });
  }

  /** Ends every thread; the documents they read, and those waiting, are refused. */
  async close(): Promise<void> {
    const closed = new SvcError("The document readers were closed");
    for (const job of this.#queue.splice(0)) settle(job).reject(closed);
    await Promise.all([...this.#threads].map((thread) => thread.end(closed)));
  }

  /** The same as {@linkcode ReaderPool.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Gives waiting documents to idle threads, starting threads up to the limit. */
  #dispatch(): void {
    while (this.#queue.length > 0) {
      let thread = [...this.#threads].find((thread) => !thread.busy);
      if (!thread) {
        if (this.#threads.size >= this.#settings.threads) return;
        thread = new ReaderThread(this.#settings, {
          idle: () => this.#dispatch(),
          ended: (ended) => {
            this.#threads.delete(ended);
            this.#dispatch();
          },
        });
        this.#threads.add(thread);
      }
      thread.run(this.#queue.shift()!);
    }
  }

  #abort(job: Job): void {
    const waiting = this.#queue.indexOf(job);
    if (waiting >= 0) {
      this.#queue.splice(waiting, 1);
      settle(job).reject(job.signal!.reason);
    } else job.thread?.end(job.signal!.reason);
  }
}

/** One reader thread and the document it reads. */
class ReaderThread {
  readonly #worker: Worker;
  readonly #settings: ReaderSettings;
  readonly #on: { idle(): void; ended(thread: ReaderThread): void };
  #job: Job | undefined;
  #deadline: ReturnType<typeof setTimeout> | undefined;
  #ended = false;

  constructor(settings: ReaderSettings, on: { idle(): void; ended(thread: ReaderThread): void }) {
    this.#settings = settings;
    this.#on = on;
    this.#worker = new Worker(startable(new URL("./_reader_worker.ts", import.meta.url)), {
      resourceLimits: { maxOldGenerationSizeMb: settings.heapMb },
    });
    this.#worker.on("message", (reply: ReadReply) => this.#answer(reply));
    this.#worker.on("error", (error: Error & { code?: string }) => {
      const job = this.#job;
      if (!job) return void this.end();
      if (error.code === "ERR_WORKER_OUT_OF_MEMORY") return void this.end(this.#outOfMemory(job));
      void this.end(stopped(job, error.message));
    });
    this.#worker.on("exit", () => {
      if (!this.#ended) void this.end(this.#job && stopped(this.#job, "it ended"));
    });
  }

  /** Whether it reads a document now. */
  get busy(): boolean {
    return this.#job !== undefined;
  }

  /** Reads a document, within the deadline. */
  run(job: Job): void {
    this.#job = job;
    job.thread = this;
    this.#worker.ref();
    const { timeoutSeconds } = this.#settings;
    this.#deadline = setTimeout(() => {
      void this.end(
        unreadable(
          job.content.name,
          `reading it takes longer than ${timeoutSeconds} second${timeoutSeconds === 1 ? "" : "s"}`,
        ),
      );
    }, timeoutSeconds * 1000);
    // A copy, moved: the caller keeps its bytes.
    const { buffer } = new Uint8Array(job.bytes);
    const request: ReadRequest = { id: job.id, buffer, content: job.content, task: job.task };
    this.#worker.postMessage(request, [buffer]);
  }

  /** Ends the thread; its document, if any, is refused with `error`. */
  async end(error?: unknown): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#deadline);
    const job = this.#job;
    this.#job = undefined;
    if (job) settle(job).reject(error ?? new SvcError("The document reader ended"));
    this.#on.ended(this);
    await this.#worker.terminate().catch(() => {});
  }

  #answer(reply: ReadReply): void {
    const job = this.#job;
    if ("memory" in reply) {
      void this.end(job && this.#outOfMemory(job));
      return;
    }
    if (!job || reply.id !== job.id) return;
    clearTimeout(this.#deadline);
    this.#job = undefined;
    // Idle threads let the process end.
    this.#worker.unref();
    if ("pages" in reply) settle(job).resolve(reply.pages);
    else if ("view" in reply) settle(job).resolve(reply.view);
    else settle(job).reject(new SvcError(reply.error.message, { status: reply.error.status }));
    this.#on.idle();
  }

  #outOfMemory(job: Job): SvcError {
    return unreadable(
      job.content.name,
      `reading it needs more than ${this.#settings.heapMb} MiB of memory`,
    );
  }
}

/**
 * A module `node:worker_threads` can start: it starts `file:` and `data:` modules only, so a
 * module of svc imported over the network (from JSR) is started by a `data:` module importing it.
 */
function startable(module: URL): URL {
  if (module.protocol === "file:") return module;
  return new URL(`data:text/javascript,import ${encodeURIComponent(JSON.stringify(module.href))};`);
}

/** Forgets the job's signal, and gives the job to settle it. */
function settle(job: Job): Job {
  job.signal?.removeEventListener("abort", job.onAbort);
  return job;
}

/** The error of a document whose thread stopped for a reason of its own: a bug, not the file. */
function stopped(job: Job, reason: string): SvcError {
  return new SvcError(`Cannot read ${quote(job.content.name)}: its reader stopped: ${reason}`);
}

let shared: ReaderPool | undefined;

/** The reader threads svc parses with, of the settings of the environment, made on first use. */
export function readerPool(): ReaderPool {
  return shared ??= new ReaderPool();
}
