import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { SvcError } from "../../components/core/errors.ts";

/** What is logged: one line per event, with the request id. */
export type Log = (line: string) => void;

/** The body of every error: `{"error": {"message": "..."}}`. */
export function errorBody(message: string): { error: { message: string } } {
  return { error: { message } };
}

/**
 * Turns any error into the one error response. A 5xx that is not an
 * `SvcError` is a bug: it is logged with the request id, which the body carries.
 */
export function onError(log: Log): (error: Error, c: Context) => Response {
  return (error: Error, c: Context): Response => {
    const requestId = c.get("requestId") as string;
    if (error instanceof SvcError) {
      if (error.status >= 500) log(`${requestId} ${error.status} ${describe(error)}`);
      return c.json(errorBody(error.message), error.status as 500);
    }
    if (error instanceof HTTPException && error.status < 500) {
      return c.json(errorBody(error.message || "The request was refused"), error.status);
    }
    log(`${requestId} 500 ${error.stack ?? error}`);
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
