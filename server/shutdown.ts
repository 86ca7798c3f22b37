/**
 * Stopping the API cleanly: how long answers in flight may go on, and cutting
 * off those that go on longer with a last error line.
 * @module
 */
import { SvcError } from "../components/core/errors.ts";
import { RunStop } from "./api/answer_runs.ts";
import { errorBody } from "./api/errors.ts";
import { numberDefault } from "./settings.ts";

/** How long a stopping API lets answers in flight finish by default: 10 s. */
export const DEFAULT_SHUTDOWN_TIMEOUT: number = numberDefault("SVC_SHUTDOWN_TIMEOUT");

/** What a cut-off stream says last; the prompt was stored when the answer started. */
export const CUT_OFF_MESSAGE = "The server stopped before the answer was complete; " +
  "your prompt is kept, ask again once the server is back";

/** The stop of an answer that runs when the server stops: stored as stopped, with the reason. */
export function serverStop(): RunStop {
  return new RunStop(CUT_OFF_MESSAGE, { outcome: "stopped", status: 503, told: true });
}

const CUT_OFF_LINE = new TextEncoder().encode(`${JSON.stringify(errorBody(CUT_OFF_MESSAGE))}\n`);

/**
 * How long a stopping API waits for answers in flight, in seconds: `value`
 * (of env `SVC_SHUTDOWN_TIMEOUT`), else {@linkcode DEFAULT_SHUTDOWN_TIMEOUT}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shutdownTimeout } from "./shutdown.ts";
 * assert(shutdownTimeout("2.5") === 2.5);
 * ```
 * @throws {SvcError} for a value that is not a number of seconds
 */
export function shutdownTimeout(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return DEFAULT_SHUTDOWN_TIMEOUT;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new SvcError(
      `SVC_SHUTDOWN_TIMEOUT must be a number of seconds, 0 or more, not ${JSON.stringify(value)}`,
    );
  }
  return seconds;
}

/**
 * The JSON Lines responses in flight. Each can be cut off between two lines:
 * it then ends with one error line, and its source is cancelled as if the
 * client had left (the answer it follows is stopped apart, see `AnswerRuns`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Streams } from "./shutdown.ts";
 * const streams = new Streams();
 * const endless = new ReadableStream({ pull: () => new Promise(() => {}) });
 * const response = streams.track(
 *   new Response(endless, { headers: { "content-type": "application/x-ndjson" } }),
 * );
 * assert(streams.size === 1);
 * streams.cutOff();
 * assert(JSON.parse(await response.text()).error.message.startsWith("The server stopped"));
 * ```
 */
export class Streams {
  readonly #cuts = new Set<() => void>();

  /** How many streams are in flight. */
  get size(): number {
    return this.#cuts.size;
  }

  /** The response, tracked until its body ends if it is a JSON Lines stream; others as they are. */
  track(response: Response): Response {
    const type = response.headers.get("content-type") ?? "";
    if (!response.body || !type.startsWith("application/x-ndjson")) return response;
    const reader = response.body.getReader();
    const cuts = this.#cuts;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let ended = false;
    const end = () => {
      ended = true;
      cuts.delete(cut);
    };
    function cut() {
      if (ended) return;
      end();
      controller.enqueue(CUT_OFF_LINE);
      controller.close();
      reader.cancel(new SvcError(CUT_OFF_MESSAGE, { status: 503 })).catch(() => {});
    }
    cuts.add(cut);
    // Chunks pass whole: the API writes each line as one chunk, so the error
    // line always follows a complete line.
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      async pull(c) {
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch (error) {
          end();
          throw error;
        }
        if (ended) return;
        if (next.done) {
          end();
          c.close();
        } else {
          c.enqueue(next.value);
        }
      },
      cancel(reason) {
        end();
        return reader.cancel(reason);
      },
    });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }

  /** Ends every stream in flight with an error line. */
  cutOff(): void {
    for (const cut of [...this.#cuts]) cut();
  }
}
