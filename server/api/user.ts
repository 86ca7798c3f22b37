import type { Context } from "hono";
import type { ApiEnv } from "./env.ts";

/**
 * The user of a request to a protected route, also kept for the request's log line.
 * @throws {SvcError} 401 from the authentication
 */
export async function requestUser(c: Context<ApiEnv>): Promise<string> {
  const user = await c.var.deps.authentication.getUser(c.req.raw);
  c.set("user", user);
  return user;
}
