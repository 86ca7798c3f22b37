/**
 * The limit of failed logins, per user and per address, so that nobody can
 * try passwords at the speed of the network: past it, every login of the user
 * or from the address is refused with 429 until the oldest failure counted
 * is older than the window, the right password included.
 * @module
 */
import { envNumber } from "../../components/core/env_number.ts";
import { quote } from "../../components/core/errors.ts";
import { RetryLaterError } from "../retry_later.ts";

/** Failed logins one user may have in the window, unless `SVC_API_LOGIN_FAILURES_PER_USER` says otherwise. */
export const DEFAULT_FAILURES_PER_USER = 10;
/** Failed logins one address may have in the window, unless `SVC_API_LOGIN_FAILURES_PER_ADDRESS` says otherwise. */
export const DEFAULT_FAILURES_PER_ADDRESS = 30;
/** The window, in seconds, unless `SVC_API_LOGIN_FAILURE_WINDOW` says otherwise: 15 minutes. */
export const DEFAULT_FAILURE_WINDOW = 15 * 60;
/** How many users and addresses are remembered at most; the oldest go first. */
const MAX_KEYS = 100_000;

/** Options of {@linkcode LoginLimits}. */
export interface LoginLimitsOptions {
  /** @default {env SVC_API_LOGIN_FAILURES_PER_USER, else 10} */
  perUser?: number;
  /** @default {env SVC_API_LOGIN_FAILURES_PER_ADDRESS, else 30} */
  perAddress?: number;
  /** Seconds. @default {env SVC_API_LOGIN_FAILURE_WINDOW, else 900} */
  window?: number;
  /** The clock, for tests. */
  now?: () => number;
}

/**
 * Counts failed logins in a sliding window. The counts live in the process:
 * behind a load balancer each replica counts its own.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LoginLimits } from "./login_limits.ts";
 * const limits = new LoginLimits({ perUser: 2, perAddress: 10, window: 60 });
 * limits.failed("ada", "10.0.0.1");
 * limits.failed("ada", "10.0.0.2");
 * assert.throws(() => limits.check("ada", "10.0.0.3"), /Too many failed logins for "ada"/);
 * limits.check("bob", "10.0.0.1");
 * ```
 */
export class LoginLimits {
  readonly perUser: number;
  readonly perAddress: number;
  readonly window: number;
  readonly #now: () => number;
  readonly #failures = new Map<string, number[]>();

  /** @throws {SvcError} naming a variable whose value is not a positive number */
  constructor(options: LoginLimitsOptions = {}) {
    this.perUser = options.perUser ??
      envNumber("SVC_API_LOGIN_FAILURES_PER_USER", { fallback: DEFAULT_FAILURES_PER_USER });
    this.perAddress = options.perAddress ??
      envNumber("SVC_API_LOGIN_FAILURES_PER_ADDRESS", { fallback: DEFAULT_FAILURES_PER_ADDRESS });
    this.window = options.window ??
      envNumber("SVC_API_LOGIN_FAILURE_WINDOW", {
        fallback: DEFAULT_FAILURE_WINDOW,
        unit: "seconds",
      });
    this.#now = options.now ?? Date.now;
  }

  /**
   * Lets a login be tried, or refuses it.
   * @throws {RetryLaterError} 429 naming the user or the address, and when to try again
   */
  check(user: string, address: string | undefined): void {
    const limits: [string, number, string][] = [
      [`user:${user}`, this.perUser, `for ${quote(user)}`],
    ];
    if (address !== undefined) {
      limits.push([`address:${address}`, this.perAddress, `from the address ${address}`]);
    }
    for (const [key, limit, whose] of limits) {
      const recent = this.#recent(key);
      if (recent.length < limit) continue;
      const wait = (recent[recent.length - limit]! + this.window * 1000 - this.#now()) / 1000;
      throw new RetryLaterError(
        `Too many failed logins ${whose}: ${recent.length} in ${minutes(this.window)}; ` +
          `try again in ${Math.max(1, Math.ceil(wait))} s`,
        wait,
      );
    }
  }

  /** Counts a failed login of the user from the address. */
  failed(user: string, address: string | undefined): void {
    const now = this.#now();
    for (const key of [`user:${user}`, ...(address === undefined ? [] : [`address:${address}`])]) {
      const recent = this.#recent(key);
      recent.push(now);
      // Moved to the end, so that the first key is the one failed longest ago.
      this.#failures.delete(key);
      this.#failures.set(key, recent);
    }
    while (this.#failures.size > MAX_KEYS) {
      this.#failures.delete(this.#failures.keys().next().value!);
    }
  }

  /** Forgets the user's failures after it logged in; its address's stay. */
  succeeded(user: string): void {
    this.#failures.delete(`user:${user}`);
  }

  /** The failures of a key within the window, oldest first. */
  #recent(key: string): number[] {
    const since = this.#now() - this.window * 1000;
    const recent = (this.#failures.get(key) ?? []).filter((time) => time > since);
    if (recent.length === 0) this.#failures.delete(key);
    return recent;
  }
}

function minutes(seconds: number): string {
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}
