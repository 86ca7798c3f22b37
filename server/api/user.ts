/**
 * Who a request comes from: the user of its API key or the one its
 * authentication finds, and the address of its connection.
 * @module
 */
import type { Context } from "hono";
import { ApiKeys, requestApiKey } from "../auth/api_keys.ts";
import type { ClientInfo } from "../auth/authentication.ts";
import type { ApiDeps, ApiEnv } from "./env.ts";

/**
 * The user of a request to a protected route, also kept for the request's log line.
 * An API key is checked here, before the authentication, so that it works on
 * every route whichever class is configured, even one that overrides `getUser`.
 * @throws {SvcError} 401 from the authentication, or for an API key that is not valid
 */
export async function requestUser(c: Context<ApiEnv>): Promise<string> {
  const key = requestApiKey(c.req.raw);
  const user = key === undefined
    ? await c.var.deps.authentication.getUser(c.req.raw, clientInfo(c))
    : await apiKeysOf(c.var.deps).verify(key);
  c.set("user", user);
  return user;
}

/** The API keys of the API's dependencies: the ones given, else the keys in its database. */
export function apiKeysOf(deps: ApiDeps): ApiKeys {
  return deps.apiKeys ?? new ApiKeys({ database: deps.database });
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
