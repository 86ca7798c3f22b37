/**
 * Time limits, retries and cancellation around a provider's stream, in one
 * place so that every model assistant behaves the same.
 * @module
 */
import { gaveUp, ProviderError, timeoutError } from "./_errors.ts";

/** Opens a provider call; `signal` aborts when the call must stop at once. */
export type OpenStream<T> = (signal: AbortSignal) => AsyncIterable<T>;

/** Options of {@linkcode withDeadlines}. */
export interface DeadlineOptions<T> {
  /** How long to wait for the first item that counts, in milliseconds. */
  first: number;
  /** How long to wait for each item after it, in milliseconds. */
  between: number;
  /**
   * Whether an item counts as the first one; until one does, only the
   * deadline of `first` applies.
   * @default {() => true}
   */
  counts?: (item: T) => boolean;
  /** Ends the iteration quietly, and cancels the call, when aborted. */
  signal?: AbortSignal;
  /** The error for a missed deadline; `started` tells whether an item that counts came. */
  onTimeout(started: boolean): Error;
}

/**
 * Iterates over what `open` streams, with a deadline for the first item and
 * for each next one. A missed deadline throws `onTimeout(started)`; an abort
 * of `options.signal` ends the iteration at once. Either way, and when the
 * consumer stops early, the signal given to `open` is aborted, so the call
 * is cancelled even while it waits: an async generator cannot be returned
 * from while it is awaiting, only its signal reaches it then.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withDeadlines } from "./_stream.ts";
 * async function* slow(signal: AbortSignal) {
 *   yield "fast";
 *   await new Promise((resolve) => signal.addEventListener("abort", resolve));
 * }
 * const seen: string[] = [];
 * try {
 *   for await (const item of withDeadlines(slow, {
 *     first: 1000,
 *     between: 10,
 *     onTimeout: (started) => new Error(started ? "stalled" : "silent"),
 *   })) seen.push(item);
 * } catch (error) {
 *   seen.push((error as Error).message);
 * }
 * assert.deepEqual(seen, ["fast", "stalled"]);
 * ```
 */
export async function* withDeadlines<T>(
  open: OpenStream<T>,
  options: DeadlineOptions<T>,
): AsyncGenerator<T> {
  const { signal } = options;
  if (signal?.aborted) return;
  const call = new AbortController();
  const stop = () => call.abort(signal?.reason);
  signal?.addEventListener("abort", stop, { once: true });
  const aborted = new Promise<"aborted">((resolve) => {
    call.signal.addEventListener("abort", () => resolve("aborted"), { once: true });
  });
  let iterator: AsyncIterator<T> | undefined;
  try {
    iterator = open(call.signal)[Symbol.asyncIterator]();
    const firstDeadline = Date.now() + options.first;
    let started = false;
    while (true) {
      const next = iterator.next();
      // Once the race is lost the call is aborted and this promise rejects; nobody waits for it.
      next.catch(() => {});
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<"timeout">((resolve) => {
        const wait = started ? options.between : firstDeadline - Date.now();
        timer = setTimeout(() => resolve("timeout"), Math.max(0, wait));
      });
      const step = await Promise.race([next, timedOut, aborted]).finally(() => clearTimeout(timer));
      if (step === "aborted") return;
      if (step === "timeout") throw options.onTimeout(started);
      if (step.done) return;
      started ||= options.counts?.(step.value) ?? true;
      yield step.value;
    }
  } finally {
    signal?.removeEventListener("abort", stop);
    call.abort();
    iterator?.return?.().catch(() => {});
  }
}

/** Options of {@linkcode streamAnswer}. */
export interface StreamAnswerOptions {
  /** The provider, as messages name it: `OpenAI`. */
  provider: string;
  /** Ends the answer quietly, and cancels the provider call, when aborted. */
  signal?: AbortSignal;
  /**
   * How long to wait for the first text, retries included, and between two
   * texts, in milliseconds.
   * @default {60000}
   */
  timeout?: number;
  /**
   * How many times to call the provider when it answers 429 or 5xx before
   * any text came.
   * @default {3}
   */
  tries?: number;
  /**
   * The first wait between two tries, in milliseconds, doubled after each
   * try; a provider's `Retry-After` wins.
   * @default {1000}
   */
  retryDelay?: number;
}

/**
 * A model's answer as svc streams it: the texts of `open`, without empty ones
 * (a provider yields `""` for an event without text: after the first text it
 * shows that the stream is alive, before it the first text is still awaited), with {@linkcode withDeadlines} turning silence into a 504,
 * and a {@linkcode ProviderError} that is worth retrying (429, 5xx) retried
 * with exponential backoff while no text has been given out. Once texts were
 * given out, a failure ends the answer with the error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { streamAnswer } from "./_stream.ts";
 * async function* echo() {
 *   yield "Hello";
 *   yield "";
 *   yield " world";
 * }
 * const chunks = await Array.fromAsync(streamAnswer(echo, { provider: "Echo" }));
 * assert.deepEqual(chunks, ["Hello", " world"]);
 * ```
 */
export async function* streamAnswer(
  open: OpenStream<string>,
  options: StreamAnswerOptions,
): AsyncGenerator<string> {
  const { provider, signal } = options;
  const timeout = options.timeout ?? 60_000;
  const tries = options.tries ?? 3;
  const retryDelay = options.retryDelay ?? 1000;
  const deadline = Date.now() + timeout;
  for (let attempt = 1;; attempt++) {
    let started = false;
    try {
      const texts = withDeadlines(open, {
        // The first text is awaited once, over all tries.
        first: deadline - Date.now(),
        between: timeout,
        counts: (text) => text !== "",
        signal,
        onTimeout: (after) => timeoutError(provider, timeout, { started: after }),
      });
      for await (const text of texts) {
        if (text === "") continue;
        started = true;
        yield text;
      }
      return;
    } catch (error) {
      if (signal?.aborted) return;
      if (started || !(error instanceof ProviderError) || !error.retryable) throw error;
      const wait = error.retryAfter ?? retryDelay * 2 ** (attempt - 1);
      if (attempt >= tries || Date.now() + wait >= deadline) {
        throw attempt > 1 ? gaveUp(error, attempt) : error;
      }
      if (!(await sleep(wait, signal))) return;
    }
  }
}

/** Waits `milliseconds`; `false` when `signal` aborted the wait. */
export function sleep(milliseconds: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (waited: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(waited);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), milliseconds);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
