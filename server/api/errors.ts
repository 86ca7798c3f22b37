/**
 * Errors as the REST API answers them, in one place: the body
 * `{"error": {"message"}}` with the `SvcError`'s status, and a log line with
 * the request id for a server error.
 * @module
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { SvcError } from "../../components/core/errors.ts";
import { redact } from "../../components/core/secrets.ts";
import { type Log, logLine } from "../log.ts";
import { RetryLaterError } from "../retry_later.ts";

/**
 * The body of every error: `{"error": {"message": "..."}}`. The message is
 * redacted (see `secrets.ts`): the process's secrets, credentials of any
 * scheme and URLs' user names, passwords, queries and fragments are hidden,
 * so that whatever a component put there, no user reads a configured secret.
 */
export function errorBody(message: string): { error: { message: string } } {
  return { error: { message: redact(message) } };
}

/**
 * Turns any error into the one error response. A 5xx is logged as an error
 * line with the request id; one that is not an `SvcError` is a bug, logged with
 * its stack, and its body carries the request id.
 */
export function onError(log: Log): (error: Error, c: Context) => Response {
  return (error: Error, c: Context): Response => {
    const requestId = c.get("requestId") as string;
    if (error instanceof SvcError) {
      if (error.status >= 500) {
        log(logLine("error", describe(error), { request_id: requestId, status: error.status }));
      }
      if (error instanceof RetryLaterError) c.header("Retry-After", String(error.retryAfter));
      return c.json(errorBody(error.message), error.status as 500);
    }
    if (error instanceof HTTPException && error.status < 500) {
      return c.json(errorBody(error.message || "The request was refused"), error.status);
    }
    log(logLine("error", `${error.name}: ${error.message}`, {
      request_id: requestId,
      status: 500,
      stack: error.stack ?? String(error),
    }));
    return c.json(
      errorBody(`Something went wrong on the server (request ${requestId}); it has been logged`),
      500,
    );
  };
}

function describe(error: Error): string {
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}
