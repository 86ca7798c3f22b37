import type { Context } from "hono";
import type { z } from "zod";
import { SvcError } from "../../components/core/errors.ts";

/**
 * The request's JSON body, checked against a schema.
 * @throws {SvcError} 422 naming each field that is wrong, and how
 */
export async function jsonBody<T extends z.ZodType>(c: Context, schema: T): Promise<z.infer<T>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch (error) {
    throw new SvcError("The body must be JSON", { status: 422, cause: error });
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.length ? `"${issue.path.join(".")}"` : "The body";
    return `${field}: ${issue.message}`;
  });
  throw new SvcError(`The body is not valid: ${problems.join("; ")}`, { status: 422 });
}
