/**
 * Request bodies of the REST API: their size bounded, and JSON bodies checked
 * by their schema.
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { z } from "zod";
import { excerpt, quote, SvcError } from "../../components/core/errors.ts";

/** The most problems the message of an invalid body lists; the others are counted. */
const MAX_PROBLEMS = 10;

/** The largest body of a request other than an upload: 1 MiB. */
export const MAX_BODY_SIZE = 1024 * 1024;

/**
 * Refuses a body over {@linkcode MAX_BODY_SIZE} with 413, from its declared length or, when it
 * has none, as it streams in. Uploads (`PUT /document`) have their own, larger limit.
 */
export function limitBodies(): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: MAX_BODY_SIZE,
    onError() {
      throw new SvcError(
        `The body is larger than the limit of ${MAX_BODY_SIZE / 1024 / 1024} MiB`,
        { status: 413 },
      );
    },
  });
  return (c, next) => {
    if (c.req.method === "PUT" && c.req.path.endsWith("/document")) return next();
    return limit(c, next);
  };
}

/** The media type of a request, lower case, without parameters: `application/json`. */
export function mediaType(c: Context): string {
  return (c.req.header("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase();
}

/**
 * The request's JSON body, checked against a schema.
 * @throws {SvcError} 415 when the body is not sent as JSON; 422 naming each field that is wrong,
 * and how
 */
export async function jsonBody<T extends z.ZodType>(c: Context, schema: T): Promise<z.infer<T>> {
  const type = mediaType(c);
  if (type !== "application/json" && !type.endsWith("+json")) {
    throw new SvcError(
      `The body must be JSON, sent with "Content-Type: application/json", not ${
        quote(type || "no content type")
      }`,
      { status: 415 },
    );
  }
  let body: unknown;
  try {
    body = await c.req.json();
  } catch (error) {
    // A body cut off or stalled is not a body that is not JSON.
    if (error instanceof SvcError) throw error;
    throw new SvcError("The body must be JSON", { status: 422, cause: error });
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  // Field names and zod's words may quote what the client sent: each is cut short, and so is the
  // list.
  const { issues } = result.error;
  const problems = issues.slice(0, MAX_PROBLEMS).map((issue) => {
    const field = issue.path.length ? quote(issue.path.join(".")) : "The body";
    return `${field}: ${excerpt(issue.message)}`;
  });
  if (issues.length > MAX_PROBLEMS) problems.push(`and ${issues.length - MAX_PROBLEMS} more`);
  throw new SvcError(`The body is not valid: ${problems.join("; ")}`, { status: 422 });
}
