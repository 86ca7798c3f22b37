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
 * Where failed logins are counted: the API's database (every replica then
 * counts them all), or a process's memory ({@linkcode MemoryLoginFailures}).
 * Keys are `user:<name>` and `address:<address>`; times are milliseconds.
 */
export interface LoginFailureStore {
  /** The times of a key's failures after `since`, oldest first. */
  loginFailures(key: string, since: number): Promise<number[]>;
  /** Counts a failure at `at` for each key; their failures until `before` may go. */
  addLoginFailures(keys: readonly string[], at: number, before: number): Promise<void>;
  /** Forgets a key's failures. */
  clearLoginFailures(key: string): Promise<void>;
}

/** Failed logins in this process's memory, the most recently failed keys kept. */
export class MemoryLoginFailures implements LoginFailureStore {
  readonly #failures = new Map<string, number[]>();

  loginFailures(key: string, since: number): Promise<number[]> {
    return Promise.resolve((this.#failures.get(key) ?? []).filter((time) => time > since));
  }

  addLoginFailures(keys: readonly string[], at: number, before: number): Promise<void> {
    for (const key of keys) {
      const recent = (this.#failures.get(key) ?? []).filter((time) => time > before);
      recent.push(at);
      // Moved to the end, so that the first key is the one failed longest ago.
      this.#failures.delete(key);
      this.#failures.set(key, recent);
    }
    while (this.#failures.size > MAX_KEYS) {
      this.#failures.delete(this.#failures.keys().next().value!);
    }
    return Promise.resolve();
  }

  clearLoginFailures(key: string): Promise<void> {
    this.#failures.delete(key);
    return Promise.resolve();
  }
}

/**
 * Counts failed logins in a sliding window, in a {@linkcode LoginFailureStore}:
 * the process's memory until {@linkcode LoginLimits.countIn} gives it the
 * API's database.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LoginLimits } from "./login_limits.ts";
 * const limits = new LoginLimits({ perUser: 2, perAddress: 10, window: 60 });
 * await limits.failed("ada", "10.0.0.1");
 * await limits.failed("ada", "10.0.0.2");
 * await assert.rejects(limits.check("ada", "10.0.0.3"), /Too many failed logins for "ada"/);
 * await limits.check("bob", "10.0.0.1");
 * ```
 */
export class LoginLimits {
  readonly perUser: number;
  readonly perAddress: number;
  readonly window: number;
  readonly #now: () => number;
  #store: LoginFailureStore = new MemoryLoginFailures();

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

  /** Counts the failures in `store` from now on (the API's database, shared by its replicas). */
  countIn(store: LoginFailureStore): void {
    this.#store = store;
  }

  /**
   * Lets a login be tried, or refuses it.
   * @throws {RetryLaterError} 429 naming the user or the address, and when to try again
   */
  async check(user: string, address: string | undefined): Promise<void> {
    const limits: [string, number, string][] = [
      [`user:${user}`, this.perUser, `for ${quote(user)}`],
    ];
    if (address !== undefined) {
      limits.push([`address:${address}`, this.perAddress, `from the address ${address}`]);
    }
    const since = this.#now() - this.window * 1000;
    for (const [key, limit, whose] of limits) {
      const recent = await this.#store.loginFailures(key, since);
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
  async failed(user: string, address: string | undefined): Promise<void> {
    const now = this.#now();
    const keys = [`user:${user}`, ...(address === undefined ? [] : [`address:${address}`])];
    await this.#store.addLoginFailures(keys, now, now - this.window * 1000);
  }

  /** Forgets the user's failures after it logged in; its address's stay. */
  async succeeded(user: string): Promise<void> {
    await this.#store.clearLoginFailures(`user:${user}`);
  }
}

function minutes(seconds: number): string {
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}
