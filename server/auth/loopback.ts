/**
 * Whether an address is this machine's own, which the demo sign-in and a
 * plain-http OpenID provider are allowed on.
 * @module
 */

/**
 * Whether a host name is this machine's own: `127.0.0.0/8`, `::1`, `localhost`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isLoopback } from "./loopback.ts";
 * assert.equal(isLoopback("127.0.0.1"), true);
 * assert.equal(isLoopback("[::1]"), true);
 * assert.equal(isLoopback("0.0.0.0"), false);
 * ```
 */
export function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === "::ffff:127.0.0.1";
}
