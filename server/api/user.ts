/**
 * Who a request comes from: the user its authentication finds, and the
 * address of its connection.
 * @module
 */
import type { Context } from "hono";
import type { ClientInfo } from "../auth/authentication.ts";
import type { ApiEnv } from "./env.ts";

/**
 * The user of a request to a protected route, also kept for the request's log line.
 * @throws {SvcError} 401 from the authentication
 */
export async function requestUser(c: Context<ApiEnv>): Promise<string> {
  const user = await c.var.deps.authentication.getUser(c.req.raw, clientInfo(c));
  c.set("user", user);
  return user;
}

/**
 * What the server knows of the request's client: the address of its
 * connection, which `Deno.serve` gives as the app's environment (none when
 * the app is called without a socket).
 */
export function clientInfo(c: Context<ApiEnv>): ClientInfo {
  const env = c.env as { remoteAddr?: { hostname?: unknown } } | undefined;
  const address = env?.remoteAddr?.hostname;
  if (typeof address !== "string") return {};
  const proxies = c.var.deps.trustedProxies;
  return proxies ? proxies.client(address, c.req.header("x-forwarded-for")) : { address };
}
