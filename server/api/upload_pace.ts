/**
 * The pace an upload must keep, so that a client cannot hold an upload slot
 * by sending a byte now and then: a least rate, measured over a window of
 * the time the server waits for the client, and a deadline for the whole
 * body. A body that falls behind either is cut with a 408.
 * @module
 */
import { SvcError } from "../../components/core/errors.ts";
import { bodyCutOff } from "./body_timeout.ts";
import { numberDefault } from "../settings.ts";

/** The default deadline of an upload's body, in seconds: an hour. */
export const DEFAULT_UPLOAD_TIMEOUT: number = numberDefault("SVC_API_UPLOAD_TIMEOUT");
/** The default least rate of an upload, in bytes per second: 4 KiB/s, far below a slow link's. */
export const DEFAULT_UPLOAD_MIN_RATE: number = numberDefault("SVC_API_UPLOAD_MIN_RATE");
/** The default window the rate is measured over, in seconds. */
export const DEFAULT_UPLOAD_RATE_WINDOW: number = numberDefault("SVC_API_UPLOAD_RATE_WINDOW");

/** Options of {@linkcode pacedBody} and {@linkcode PaceMeter}. */
export interface UploadPaceOptions {
  /** How long the whole body may take, in milliseconds. */
  timeout: number;
  /** The fewest bytes per second over each window. */
  minRate: number;
  /** The window, in milliseconds of waiting for the client. */
  window: number;
}

/**
 * The rate of a body over windows of the time spent waiting for it: the
 * bytes that came in each window must reach `minRate` for its length. The
 * time the server spends on what it read (writing it to disk) is not the
 * client's, and is not counted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PaceMeter } from "./upload_pace.ts";
 * const meter = new PaceMeter({ timeout: 3_600_000, minRate: 100, window: 1000 });
 * meter.waited(600, 70);
 * assert.equal(meter.untilCheck(), 400);
 * assert.equal(meter.waited(400, 0), "slow");
 * ```
 */
export class PaceMeter {
  readonly #options: UploadPaceOptions;
  #waited = 0;
  #bytes = 0;
  #checked = 0;

  constructor(options: UploadPaceOptions) {
    this.#options = options;
  }

  /** The bytes of the last window checked, for a refusal's message. */
  get lastWindowBytes(): number {
    return this.#checked;
  }

  /** Milliseconds of waiting left before the window ends and is checked. */
  untilCheck(): number {
    return this.#options.window - this.#waited;
  }

  /**
   * Counts `ms` more of waiting, after which `bytes` came; `"slow"` when a
   * window ended with fewer bytes than the rate asks for.
   */
  waited(ms: number, bytes: number): "slow" | undefined {
    this.#waited += ms;
    this.#bytes += bytes;
    if (this.#waited < this.#options.window) return undefined;
    const enough = this.#bytes >= this.#options.minRate * this.#options.window / 1000;
    this.#checked = this.#bytes;
    this.#waited = 0;
    this.#bytes = 0;
    return enough ? undefined : "slow";
  }
}

/**
 * The body of an upload read at the pace of {@linkcode UploadPaceOptions}:
 * a body slower than `minRate` over a window, or not whole by `timeout`,
 * fails with a 408 that says which.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pacedBody } from "./upload_pace.ts";
 * const stalled = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
 * const body = pacedBody(stalled, { timeout: 60_000, minRate: 1000, window: 100 });
 * await assert.rejects(new Response(body).arrayBuffer(), { status: 408 });
 * ```
 */
export function pacedBody(
  body: ReadableStream<Uint8Array>,
  options: UploadPaceOptions,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const meter = new PaceMeter(options);
  const started = Date.now();
  const fail = (controller: ReadableStreamDefaultController, error: SvcError) => {
    reader.cancel(error).catch(() => {});
    controller.error(error);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const read = reader.read();
      // Left unread when the body is cut meanwhile; its failure then is no one's to hear.
      read.catch(() => {});
      let since = Date.now();
      for (;;) {
        const left = options.timeout - (since - started);
        if (left <= 0) return fail(controller, tooLong(options.timeout));
        let timer: ReturnType<typeof setTimeout> | undefined;
        const due = new Promise<"due">((resolve) => {
          timer = setTimeout(() => resolve("due"), Math.min(left, meter.untilCheck()));
        });
        let step: ReadableStreamReadResult<Uint8Array> | "due";
        try {
          step = await Promise.race([read, due]);
        } catch (cause) {
          return controller.error(cause instanceof SvcError ? cause : bodyCutOff(cause));
        } finally {
          clearTimeout(timer);
        }
        const now = Date.now();
        const bytes = step === "due" || step.done ? 0 : step.value.byteLength;
        if (meter.waited(now - since, bytes) === "slow") {
          return fail(controller, tooSlow(meter.lastWindowBytes, options));
        }
        since = now;
        if (step === "due") continue;
        if (step.done) return controller.close();
        return controller.enqueue(step.value);
      }
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
}

/** The request with its body read through {@linkcode pacedBody}. */
export function pacedRequest(request: Request, options: UploadPaceOptions): Request {
  if (request.body === null) return request;
  const body = pacedBody(request.body, options);
  return new Request(request, { body, duplex: "half" } as RequestInit);
}

function tooSlow(bytes: number, options: UploadPaceOptions): SvcError {
  return new SvcError(
    `The upload came too slowly: ${bytes} bytes in ${options.window / 1000} s, under the ` +
      `least of ${options.minRate} bytes per second (SVC_API_UPLOAD_MIN_RATE); send it on a ` +
      "faster connection",
    { status: 408 },
  );
}

function tooLong(timeout: number): SvcError {
  return new SvcError(
    `The upload took too long: it was still arriving after ${timeout / 1000} s ` +
      "(SVC_API_UPLOAD_TIMEOUT)",
    { status: 408 },
  );
}
