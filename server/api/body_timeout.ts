/**
 * Request bodies that cannot hold the server: one that stops sending is cut
 * after an idle time with a 408, and one whose client went away ends in an
 * error that the route handles like any other, never in an uncaught one.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { SvcError } from "../../components/core/errors.ts";
import { numberDefault } from "../settings.ts";

/** The default idle time of a request body, in seconds. */
export const DEFAULT_BODY_TIMEOUT: number = numberDefault("SVC_API_BODY_TIMEOUT");

/** Options of {@linkcode guardedBody}. */
export interface GuardedBodyOptions {
  /** How long a read may wait for the next bytes, in milliseconds. */
  idleTimeout: number;
}

/**
 * The body of a request read through an idle timer: a read that waits longer
 * than `idleTimeout` for the next bytes fails with {@linkcode bodyStalled},
 * and a body the client cut off fails with {@linkcode bodyCutOff}. The timer
 * runs only while the reader waits, so a slow consumer (a disk write) never
 * counts against the client.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { guardedBody } from "./body_timeout.ts";
 * const stalled = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
 * const body = guardedBody(stalled, { idleTimeout: 10 });
 * await assert.rejects(new Response(body).text(), { status: 408 });
 * ```
 */
export function guardedBody(
  body: ReadableStream<Uint8Array>,
  options: GuardedBodyOptions,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stalled = new Promise<"stalled">((resolve) => {
        timer = setTimeout(() => resolve("stalled"), options.idleTimeout);
      });
      try {
        const step = await Promise.race([reader.read(), stalled]);
        if (step === "stalled") {
          const error = bodyStalled(options.idleTimeout);
          reader.cancel(error).catch(() => {});
          controller.error(error);
        } else if (step.done) {
          controller.close();
        } else {
          controller.enqueue(step.value);
        }
      } catch (cause) {
        controller.error(cause instanceof SvcError ? cause : bodyCutOff(cause));
      } finally {
        clearTimeout(timer);
      }
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
}

/** Reads every request body through {@linkcode guardedBody}. */
export function guardBodies(options: GuardedBodyOptions): MiddlewareHandler {
  return async (c, next) => {
    const raw = c.req.raw;
    if (raw.body === null) return next();
    const body = guardedBody(raw.body, options);
    c.req.raw = new Request(raw, { body, duplex: "half" } as RequestInit);
    await next();
  };
}

/** The 408 for a body that stopped coming. */
export function bodyStalled(idleTimeout: number): SvcError {
  return new SvcError(
    `The request body stopped arriving: nothing came for ${idleTimeout / 1000} s ` +
      "(SVC_API_BODY_TIMEOUT)",
    { status: 408 },
  );
}

/** The error of a body whose client went away before sending all of it. */
export function bodyCutOff(cause?: unknown): SvcError {
  return new SvcError("The request body was cut off before its end", { status: 400, cause });
}
