/**
 * The scan thread's main end: a large chat's vector codes, laid end to end,
 * are held by a thread of their own and scanned there, while the main thread
 * ranks the full-text arm (`_chat_codes.ts`). The thread holds the process
 * open only while a scan is under way.
 * @module
 */
import { Worker } from "node:worker_threads";
import type { LaidCodes } from "./_vector_codes.ts";

/**
 * What the scan thread is asked: to hold codes, to scan them, to let them go.
 * Numbers cross as the memory of their arrays (`Int8Array`, `Float32Array`,
 * `Int32Array`), moved rather than copied: Deno's `node:worker_threads` copies
 * a typed array number by number, some 200 ms a MiB (measured), and moves a
 * buffer at once.
 */
export type ScanRequest =
  | { lay: number; dimension: number; size: number; codes: ArrayBuffer; factors: ArrayBuffer }
  | { scan: number; codes: number; query: ArrayBuffer; count: number }
  | { drop: number };

/** What the scan thread answers to a scan: positions among the codes, nearest first. */
export type ScanReply =
  | { scan: number; positions: ArrayBuffer }
  | { scan: number; error: string };

let thread: ScanThread | undefined;

/** Codes laid end to end, held by the scan thread. */
export class ThreadCodes {
  readonly #thread: ScanThread;
  readonly #id: number;

  private constructor(thread: ScanThread, id: number) {
    this.#thread = thread;
    this.#id = id;
  }

  /**
   * Gives `laid` to the scan thread, started if need be: the memory of its
   * arrays is moved there (they are left empty) when it is theirs alone.
   */
  static lay(laid: LaidCodes): ThreadCodes {
    if (!thread || thread.failed) thread = new ScanThread();
    return new ThreadCodes(thread, thread.lay(laid));
  }

  /**
   * The positions of the `count` codes nearest `query`, nearest first, as
   * `nearestCodes()` ranks them. Fails when the thread failed or stopped,
   * which takes its codes with it.
   */
  nearest(query: Float32Array, count: number): Promise<Int32Array> {
    return this.#thread.scan(this.#id, query, count);
  }

  /** Lets the thread free the codes. */
  discard(): void {
    this.#thread.drop(this.#id);
  }
}

/** Stops the scan thread; the scans under way fail, and the next codes laid start another. */
export function endScanThread(): void {
  thread?.end();
  thread = undefined;
}

class ScanThread {
  readonly #worker: Worker;
  readonly #scans = new Map<number, PromiseWithResolvers<Int32Array>>();
  #next = 0;
  #failure: Error | undefined;

  constructor() {
    this.#worker = new Worker(new URL("./_code_scan_worker.ts", import.meta.url));
    this.#worker.unref();
    this.#worker.on("message", (reply: ScanReply) => {
      const scan = this.#settle(reply.scan);
      if ("error" in reply) scan?.reject(new Error(reply.error));
      else scan?.resolve(new Int32Array(reply.positions));
    });
    this.#worker.on("error", (error: Error) => {
      this.#fail(new Error(`The vector scan's thread failed: ${error.message}`));
    });
    this.#worker.on("exit", () => this.#fail(new Error("The vector scan's thread stopped")));
  }

  get failed(): boolean {
    return this.#failure !== undefined;
  }

  lay({ dimension, size, codes, factors }: LaidCodes): number {
    const id = this.#next++;
    const [codeBytes, factorBytes] = [wholeBuffer(codes), wholeBuffer(factors)];
    this.#post({ lay: id, dimension, size, codes: codeBytes, factors: factorBytes }, [
      codeBytes,
      factorBytes,
    ]);
    return id;
  }

  scan(codes: number, query: Float32Array, count: number): Promise<Int32Array> {
    if (this.#failure) return Promise.reject(this.#failure);
    const scan = this.#next++;
    const reply = Promise.withResolvers<Int32Array>();
    this.#scans.set(scan, reply);
    // Held open while a scan is under way: its reply is what the caller awaits.
    if (this.#scans.size === 1) this.#worker.ref();
    // A copy of the query's own numbers: a view may share a larger memory.
    const numbers = query.slice().buffer;
    this.#post({ scan, codes, query: numbers, count }, [numbers]);
    return reply.promise;
  }

  drop(codes: number): void {
    this.#post({ drop: codes });
  }

  end(): void {
    this.#fail(new Error("The vector scan's thread was stopped"));
    void this.#worker.terminate();
  }

  #post(request: ScanRequest, transfer: ArrayBuffer[] = []): void {
    if (!this.#failure) this.#worker.postMessage(request, transfer);
  }

  #settle(scan: number): PromiseWithResolvers<Int32Array> | undefined {
    const settled = this.#scans.get(scan);
    this.#scans.delete(scan);
    if (settled && this.#scans.size === 0) this.#worker.unref();
    return settled;
  }

  #fail(failure: Error): void {
    this.#failure ??= failure;
    for (const scan of [...this.#scans.keys()]) this.#settle(scan)?.reject(this.#failure);
  }
}

/** The memory of `view`: its own when the view is all of it, else a copy of its part. */
function wholeBuffer(view: Int8Array<ArrayBuffer> | Float32Array<ArrayBuffer>): ArrayBuffer {
  const whole = view.byteOffset === 0 && view.byteLength === view.buffer.byteLength;
  return whole ? view.buffer : view.slice().buffer;
}
