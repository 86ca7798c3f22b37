/**
 * How far apart the page tries to reach svc again once it could not.
 * @module
 */

/** The longest wait between two tries, in milliseconds. */
export const MAX_RETRY_DELAY = 30_000;

/**
 * How long to wait before try `attempt` (from 0), in milliseconds: one
 * second, doubled at each try, at most {@linkcode MAX_RETRY_DELAY}, so that
 * a server that is back is noticed soon and one that stays down is not
 * asked every second by every open page.
 *
 * @example
 * ```ts
 * import { retryDelay } from "./backoff.ts";
 * console.assert([0, 1, 2, 10].map(retryDelay).join() === "1000,2000,4000,30000");
 * ```
 */
export function retryDelay(attempt: number): number {
  return Math.min(MAX_RETRY_DELAY, 1000 * 2 ** Math.max(0, attempt));
}
