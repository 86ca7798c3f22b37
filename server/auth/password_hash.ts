/**
 * Password hashes: argon2id, through hash-wasm (WebAssembly, so that the
 * compiled binary needs nothing native), computed by a small pool of workers.
 * A hash takes its memory and tens of milliseconds of a core by design; on
 * the thread that answers requests, a burst of logins would hold every
 * other request, `/health` included, until all were hashed.
 * @module
 */
import { envNumber } from "../../components/core/env_number.ts";
import { type Env, numberDefault } from "../settings.ts";
import { SvcError } from "../../components/core/errors.ts";
import { RetryLaterError } from "../retry_later.ts";

/**
 * The costs of a new hash: OWASP's argon2id setting of 19 MiB, 2 passes, one
 * lane. A hash keeps its own costs, so raising these later leaves old hashes
 * readable.
 */
export const ARGON2ID_COSTS = { memorySize: 19 * 1024, iterations: 2, parallelism: 1 };

/** How many hashes may wait for a worker, unless `SVC_API_PASSWORD_QUEUE` says otherwise. */
export const DEFAULT_PASSWORD_QUEUE: number = numberDefault("SVC_API_PASSWORD_QUEUE");

/** A hash or a check for the worker. */
export type PasswordJob =
  | { id: number; kind: "hash"; password: string; costs: typeof ARGON2ID_COSTS }
  | { id: number; kind: "verify"; password: string; hash: string };

/** What the worker answers. */
export type PasswordReply =
  | { id: number; value: string | boolean }
  | { id: number; error: { message: string; status: number } };

/** Options of {@linkcode PasswordPool}. */
export interface PasswordPoolOptions {
  /** @default {env SVC_API_PASSWORD_WORKERS, else 1 on two cores or fewer, 2 on more} */
  workers?: number;
  /** @default {env SVC_API_PASSWORD_QUEUE, else 256} */
  queue?: number;
  /**
   * The environment svc read at start, where the options above not given are read.
   * @default {{}}
   */
  env?: Env;
}

/**
 * The number of workers when `SVC_API_PASSWORD_WORKERS` is unset: one where
 * the machine has two cores or fewer, so that a burst of logins leaves a core
 * to the requests, else two.
 */
export function defaultPasswordWorkers(): number {
  return navigator.hardwareConcurrency > 2 ? 2 : 1;
}

interface Job {
  message: PasswordJob;
  resolve(value: string | boolean): void;
  reject(error: unknown): void;
}

/**
 * The workers that hash and check passwords, started when needed and ended
 * when none is needed unless the pool is held ({@linkcode PasswordPool.hold}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PasswordPool } from "./password_hash.ts";
 * const pool = new PasswordPool({ workers: 1 });
 * const hash = await pool.hash("correct horse");
 * assert.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
 * assert.equal(await pool.verify("correct horse", hash), true);
 * assert.equal(await pool.verify("wrong horse", hash), false);
 * ```
 */
export class PasswordPool {
  readonly workers: number;
  readonly queue: number;
  readonly #idle: Worker[] = [];
  readonly #busy = new Map<Worker, Job>();
  readonly #waiting: Job[] = [];
  #next = 0;
  #holds = 0;
  #mostAtOnce = 0;

  /** @throws {SvcError} naming a variable whose value is not a positive whole number */
  constructor(options: PasswordPoolOptions = {}) {
    this.workers = options.workers ??
      envNumber("SVC_API_PASSWORD_WORKERS", {
        fallback: defaultPasswordWorkers(),
        env: options.env ?? {},
      });
    this.queue = options.queue ??
      envNumber("SVC_API_PASSWORD_QUEUE", {
        fallback: DEFAULT_PASSWORD_QUEUE,
        env: options.env ?? {},
      });
  }

  /** How many hashes and checks wait or run. */
  get pending(): number {
    return this.#waiting.length + this.#busy.size;
  }

  /** The most hashes and checks that ran at once so far. */
  get mostAtOnce(): number {
    return this.#mostAtOnce;
  }

  /**
   * Keeps the workers once started, until the function returned is called:
   * for a server, whose logins then never wait for a worker to load. Without
   * a hold, workers end as soon as nothing waits, so that they never keep a
   * process alive.
   */
  hold(): () => void {
    this.#holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds--;
      this.#start();
    };
  }

  /**
   * Refuses a login when as many checks wait as the queue holds, before the
   * login is counted or read further.
   * @throws {RetryLaterError} 429 saying how many wait
   */
  checkRoom(): void {
    if (this.#waiting.length < this.queue) return;
    throw new RetryLaterError(
      `Too many logins at once: ${this.#waiting.length} passwords wait to be checked, the most ` +
        "the server queues (SVC_API_PASSWORD_QUEUE); try again in a few seconds",
      2,
    );
  }

  /** The argon2id hash of a password with a fresh random salt, as a PHC string. */
  async hash(password: string): Promise<string> {
    return await this.#run({ id: 0, kind: "hash", password, costs: ARGON2ID_COSTS }) as string;
  }

  /** Whether `password` is the one `hash` was made from; a hash that cannot be read matches nothing. */
  async verify(password: string, hash: string): Promise<boolean> {
    return await this.#run({ id: 0, kind: "verify", password, hash }) as boolean;
  }

  #run(message: PasswordJob): Promise<string | boolean> {
    const { promise, resolve, reject } = Promise.withResolvers<string | boolean>();
    this.#waiting.push({ message: { ...message, id: this.#next++ }, resolve, reject });
    this.#start();
    return promise;
  }

  /** Gives waiting jobs to the workers free or still to start; ends the workers when none waits. */
  #start(): void {
    while (this.#waiting.length > 0) {
      const worker = this.#idle.pop() ??
        (this.#busy.size < this.workers ? this.#spawn() : undefined);
      if (worker === undefined) return;
      const job = this.#waiting.shift()!;
      this.#busy.set(worker, job);
      this.#mostAtOnce = Math.max(this.#mostAtOnce, this.#busy.size);
      worker.postMessage(job.message);
    }
    if (this.#busy.size === 0 && this.#holds === 0) {
      for (const worker of this.#idle.splice(0)) worker.terminate();
    }
  }

  #spawn(): Worker {
    const worker = new Worker(new URL("./_password_worker.ts", import.meta.url), {
      type: "module",
    });
    worker.onmessage = ({ data }: MessageEvent<PasswordReply>) => {
      const job = this.#busy.get(worker);
      this.#busy.delete(worker);
      this.#idle.push(worker);
      if ("error" in data) {
        job?.reject(new SvcError(data.error.message, { status: data.error.status }));
      } else job?.resolve(data.value);
      this.#start();
    };
    worker.onerror = (event) => {
      event.preventDefault();
      const job = this.#busy.get(worker);
      this.#busy.delete(worker);
      worker.terminate();
      job?.reject(new SvcError(`The password worker failed: ${event.message}`));
      this.#start();
    };
    return worker;
  }
}

let shared: PasswordPool | undefined;

/**
 * The pool of this process, made the first time it is needed, from the environment given then
 * (the server gives the one it read at start).
 */
export function passwordPool(env: Env = {}): PasswordPool {
  return shared ??= new PasswordPool({ env });
}

/**
 * The argon2id hash of a password with a fresh random salt, as a PHC string
 * (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`), made by a worker.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hashPassword, verifyPassword } from "./password_hash.ts";
 * const hash = await hashPassword("correct horse");
 * assert.match(hash, /^\$argon2id\$/);
 * assert.equal(await verifyPassword("correct horse", hash), true);
 * assert.equal(await verifyPassword("wrong horse", hash), false);
 * ```
 */
export function hashPassword(password: string): Promise<string> {
  return passwordPool().hash(password);
}

/** Whether `password` is the one `hash` was made from, checked by a worker; an unreadable hash matches nothing. */
export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return passwordPool().verify(password, hash);
}
