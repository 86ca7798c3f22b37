/**
 * The scan thread's main end: a large chat's vector codes, laid end to end,
 * are held by a thread of their own and scanned there, while the main thread
 * ranks the full-text arm (`chat_codes.ts`). The thread holds the process
 * open only while a scan is under way.
 *
 * Codes go to the thread as messages. A scan goes through memory the two
 * threads share ({@linkcode ScanChannel}), each end woken by
 * `Atomics.notify`: as messages, a question and its answer took 0.8 ms to
 * cross while the main thread ranked the full-text arm (0.4 each way), and
 * so some 0.3 (0.2 of it waking the thread).
 * @module
 */
import { Worker } from "node:worker_threads";
import type { LaidCodes } from "./vector_codes.ts";

/**
 * The messages the scan thread is sent: codes to hold (their numbers moved as
 * the memory of their arrays: Deno's `node:worker_threads` copies a typed
 * array number by number, some 200 ms a MiB, and moves a buffer at once),
 * codes to let go, and the channel that scans come through from then on.
 */
export type ScanRequest =
  | { lay: number; dimension: number; size: number; codes: ArrayBuffer; factors: ArrayBuffer }
  | { drop: number }
  | { channel: SharedArrayBuffer };

/** The places of a channel's control numbers. */
export const CONTROL = {
  /** The number of the last scan asked (they count from 1). */
  asked: 0,
  /** The number of the last scan answered. */
  answered: 1,
  /** The codes to scan, the count of positions asked, the query's dimension. */
  codes: 2,
  count: 3,
  dimension: 4,
  /** 0 when the answer is positions, 1 when it is an error's text in UTF-8. */
  failed: 5,
  /** How many positions, or bytes of the error's text, the answer holds. */
  length: 6,
  /** The room for a query's numbers and for an answer's positions. */
  queryRoom: 7,
  answerRoom: 8,
} as const;
const CONTROLS = 9;
// The least room made for an answer: an error's text, cut to it, fits.
const ANSWER_ROOM = 1024;

/**
 * A scan's memory, shared by both threads: the control numbers, the query,
 * and the answer. Each thread makes its own views of the same memory.
 */
export class ScanChannel {
  readonly control: Int32Array<SharedArrayBuffer>;
  readonly query: Float32Array<SharedArrayBuffer>;
  readonly answer: Int32Array<SharedArrayBuffer>;

  constructor(readonly memory: SharedArrayBuffer) {
    this.control = new Int32Array(memory, 0, CONTROLS);
    const queryRoom = this.control[CONTROL.queryRoom]!;
    this.query = new Float32Array(memory, 4 * CONTROLS, queryRoom);
    this.answer = new Int32Array(
      memory,
      4 * (CONTROLS + queryRoom),
      this.control[CONTROL.answerRoom]!,
    );
  }

  /** A channel with room for a query of `dimension` numbers and `count` positions. */
  static make(dimension: number, count: number): ScanChannel {
    const answerRoom = Math.max(count, ANSWER_ROOM);
    const memory = new SharedArrayBuffer(4 * (CONTROLS + dimension + answerRoom));
    const control = new Int32Array(memory, 0, CONTROLS);
    control[CONTROL.queryRoom] = dimension;
    control[CONTROL.answerRoom] = answerRoom;
    return new ScanChannel(memory);
  }

  /** Whether a query of `dimension` numbers and an answer of `count` positions fit. */
  fits(dimension: number, count: number): boolean {
    return dimension <= this.query.length && count <= this.answer.length;
  }

  /** Answers the last scan asked with `positions`, and wakes the asking thread. */
  answerWith(positions: ArrayLike<number>): void {
    this.answer.set(positions);
    this.#answer(0, positions.length);
  }

  /** Answers the last scan asked with an error's text (cut to the room), and wakes the asking thread. */
  failWith(message: string): void {
    const bytes = new Uint8Array(
      this.answer.buffer,
      this.answer.byteOffset,
      this.answer.byteLength,
    );
    const { written } = new TextEncoder().encodeInto(message, bytes);
    this.#answer(1, written);
  }

  /** The answer's positions, or its error thrown. */
  positions(): Int32Array {
    const length = this.control[CONTROL.length]!;
    if (this.control[CONTROL.failed] === 0) return this.answer.slice(0, length);
    const bytes = new Uint8Array(this.answer.buffer, this.answer.byteOffset, length);
    throw new Error(new TextDecoder().decode(bytes.slice()));
  }

  #answer(failed: number, length: number): void {
    this.control[CONTROL.failed] = failed;
    this.control[CONTROL.length] = length;
    Atomics.store(this.control, CONTROL.answered, this.control[CONTROL.asked]!);
    Atomics.notify(this.control, CONTROL.answered);
  }
}

let thread: ScanThread | undefined;

/** Codes laid end to end, held by the scan thread. */
export class ThreadCodes {
  readonly #thread: ScanThread;
  readonly #id: number;
  #discarded = false;

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
   * `nearestCodes()` ranks them. Fails when the codes were let go, or the
   * thread failed or stopped, which takes its codes with it.
   */
  nearest(query: Float32Array, count: number): Promise<Int32Array> {
    if (this.#discarded) {
      return Promise.reject(new Error(`No codes ${this.#id} to scan: they were let go`));
    }
    return this.#thread.scan(this.#id, query, count);
  }

  /** Lets the thread free the codes. */
  discard(): void {
    this.#discarded = true;
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
  #channel: ScanChannel | undefined;
  // Scans take turns: one channel, one scan at a time.
  #turn: Promise<unknown> = Promise.resolve();
  #scans = 0;
  #laid = 0;
  #failure: Error | undefined;
  readonly #failed = Promise.withResolvers<never>();

  constructor() {
    this.#worker = new Worker(new URL("./code_scan_worker.ts", import.meta.url));
    this.#worker.unref();
    this.#failed.promise.catch(() => {});
    this.#worker.on("error", (error: Error) => {
      this.#fail(new Error(`The vector scan's thread failed: ${error.message}`));
    });
    this.#worker.on("exit", () => this.#fail(new Error("The vector scan's thread stopped")));
  }

  get failed(): boolean {
    return this.#failure !== undefined;
  }

  lay({ dimension, size, codes, factors }: LaidCodes): number {
    const id = ++this.#laid;
    const [codeBytes, factorBytes] = [wholeBuffer(codes), wholeBuffer(factors)];
    this.#post({ lay: id, dimension, size, codes: codeBytes, factors: factorBytes }, [
      codeBytes,
      factorBytes,
    ]);
    return id;
  }

  scan(codes: number, query: Float32Array, count: number): Promise<Int32Array> {
    if (this.#failure) return Promise.reject(this.#failure);
    // Held open while a scan is under way: its answer is what the caller awaits.
    if (this.#scans++ === 0) this.#worker.ref();
    // Asked at once when no other scan is under way (the caller goes on to rank the full text).
    const scanned = this.#scans === 1
      ? this.#scanNow(codes, query, count)
      : this.#turn.then(() => this.#scanNow(codes, query, count));
    this.#turn = scanned.catch(() => {});
    return scanned.finally(() => {
      if (--this.#scans === 0) this.#worker.unref();
    });
  }

  drop(codes: number): void {
    this.#post({ drop: codes });
  }

  end(): void {
    this.#fail(new Error("The vector scan's thread was stopped"));
    void this.#worker.terminate();
  }

  async #scanNow(codes: number, query: Float32Array, count: number): Promise<Int32Array> {
    if (this.#failure) throw this.#failure;
    let channel = this.#channel;
    if (!channel?.fits(query.length, count)) {
      // The thread takes the new channel before it looks for the scan asked through it.
      channel = this.#channel = ScanChannel.make(
        Math.max(query.length, 2 * (channel?.query.length ?? 0)),
        Math.max(count, 2 * (channel?.answer.length ?? 0)),
      );
      this.#post({ channel: channel.memory });
    }
    const { control } = channel;
    channel.query.set(query);
    control[CONTROL.codes] = codes;
    control[CONTROL.count] = count;
    control[CONTROL.dimension] = query.length;
    const asked = control[CONTROL.asked]! + 1;
    Atomics.store(control, CONTROL.asked, asked);
    Atomics.notify(control, CONTROL.asked);
    const answered = Atomics.waitAsync(control, CONTROL.answered, asked - 1);
    if (answered.async) await Promise.race([answered.value, this.#failed.promise]);
    return channel.positions();
  }

  #post(request: ScanRequest, transfer: ArrayBuffer[] = []): void {
    if (!this.#failure) this.#worker.postMessage(request, transfer);
  }

  #fail(failure: Error): void {
    if (this.#failure) return;
    this.#failure = failure;
    this.#failed.reject(failure);
  }
}

/** The memory of `view`: its own when the view is all of it, else a copy of its part. */
function wholeBuffer(view: Int8Array<ArrayBuffer> | Float32Array<ArrayBuffer>): ArrayBuffer {
  const whole = view.byteOffset === 0 && view.byteLength === view.buffer.byteLength;
  return whole ? view.buffer : view.slice().buffer;
}
