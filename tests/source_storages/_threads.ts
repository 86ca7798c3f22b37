/**
 * What runs on which thread: the calls made on this one, and the messages of
 * the workers it starts, so that a test can tell what happens while a worker
 * has a job, which a clock cannot tell on a busy machine.
 * @module
 */
import { Worker as NodeWorker } from "node:worker_threads";

/** The arguments of each call recorded, in order. */
export interface RecordedCalls extends Disposable {
  readonly calls: unknown[][];
}

/**
 * Records the calls of `object[name]` until disposed, and still makes them.
 * A worker has its own copy of every module, so only this thread's calls are
 * recorded.
 */
export function recordCalls<T extends object>(object: T, name: keyof T & string): RecordedCalls {
  const original = object[name] as (...args: unknown[]) => unknown;
  const calls: unknown[][] = [];
  object[name] = function (this: unknown, ...args: unknown[]) {
    calls.push(args);
    return original.apply(this, args);
  } as T[typeof name];
  return {
    calls,
    [Symbol.dispose]() {
      object[name] = original as T[typeof name];
    },
  };
}

/** The messages posted to the watched workers, and their replies. */
export interface WorkerWatch extends Disposable {
  /** Messages posted to a worker. */
  readonly posted: number;
  /** Messages received from a worker. */
  readonly replies: number;
  /** Settles once the next message is posted, before the worker can have answered it. */
  nextPost(): Promise<void>;
}

/**
 * Replaces `globalThis.Worker` until disposed by a subclass that counts what
 * is posted to it and what it answers. Workers started before keep running
 * unwatched.
 */
export function watchWorkers(): WorkerWatch {
  const original = globalThis.Worker;
  let waiting: PromiseWithResolvers<void>[] = [];
  const watch = {
    posted: 0,
    replies: 0,
    nextPost() {
      const next = Promise.withResolvers<void>();
      waiting.push(next);
      return next.promise;
    },
    [Symbol.dispose]() {
      globalThis.Worker = original;
    },
  };
  globalThis.Worker = class extends original {
    constructor(...args: ConstructorParameters<typeof Worker>) {
      super(...args);
      // Added before the starter sets `onmessage`, so it counts a reply before it is handled.
      this.addEventListener("message", () => watch.replies++);
    }

    override postMessage(message: unknown, options?: Transferable[] | StructuredSerializeOptions) {
      super.postMessage(message, options as StructuredSerializeOptions);
      watch.posted++;
      for (const next of waiting) next.resolve();
      waiting = [];
    }
  };
  return watch;
}

/** Copies of the messages posted to the watched threads, besides what {@linkcode WorkerWatch} counts. */
export interface ThreadWatch extends WorkerWatch {
  readonly messages: unknown[];
}

/**
 * Counts, until disposed, the messages posted to the threads of `node:worker_threads` (svc's
 * reader threads), keeping them, and their replies; the same as {@linkcode watchWorkers} for Web
 * Workers.
 */
export function watchThreads(): ThreadWatch {
  const prototype = NodeWorker.prototype;
  const original = prototype.postMessage;
  const watched = new WeakSet<NodeWorker>();
  let waiting: PromiseWithResolvers<void>[] = [];
  const watch = {
    posted: 0,
    replies: 0,
    messages: [] as unknown[],
    nextPost() {
      const next = Promise.withResolvers<void>();
      waiting.push(next);
      return next.promise;
    },
    [Symbol.dispose]() {
      prototype.postMessage = original;
    },
  };
  prototype.postMessage = function (this: NodeWorker, ...args: Parameters<typeof original>) {
    if (!watched.has(this)) {
      watched.add(this);
      this.on("message", () => watch.replies++);
    }
    // A copy, as it was before its buffers were moved.
    watch.messages.push(structuredClone(args[0]));
    original.apply(this, args);
    watch.posted++;
    for (const next of waiting) next.resolve();
    waiting = [];
  };
  return watch;
}

/**
 * The nice value of each worker thread of this process (Deno names their threads `worker-<n>`),
 * from `/proc`; Linux only. A thread that ends while it is read is left out.
 */
export function workerNices(): number[] {
  return [...workerThreads().values()];
}

/** The nice value of each worker thread of this process, by thread id; Linux only. */
export function workerThreads(): Map<string, number> {
  const nices = new Map<string, number>();
  for (const { name } of Deno.readDirSync("/proc/self/task")) {
    try {
      if (!Deno.readTextFileSync(`/proc/self/task/${name}/comm`).startsWith("worker-")) continue;
      const stat = Deno.readTextFileSync(`/proc/self/task/${name}/stat`);
      // The fields after the command's closing parenthesis, from the third: nice is the 19th.
      nices.set(name, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return nices;
}
