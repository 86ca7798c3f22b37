/**
 * The limits of failed logins, so that nobody can try passwords at the speed
 * of the network, and nobody can lock a user out from everywhere with a few
 * guesses. Three counts, over a sliding window:
 *
 * - one user from one address (10): a guesser from one place is stopped
 *   after a few tries, and only there: the user still logs in from elsewhere;
 * - one address, whichever users it names (30): one place cannot guess at
 *   many users either;
 * - one user from every address together (100): a guesser with many
 *   addresses is stopped too. Reaching it takes many addresses, and an
 *   administrator lifts it at once with `svc user unlock NAME`.
 *
 * Each login is counted before its password is checked, in one atomic step
 * of the store that refuses it when a limit is reached, so that logins tried
 * at once cannot all pass the count. A login that succeeds takes back the
 * failures of its user from its address.
 * @module
 */
import { envNumber } from "../../components/core/env_number.ts";
import { type Env, numberDefault } from "../settings.ts";
import { quote } from "../../components/core/errors.ts";
import { RetryLaterError } from "../retry_later.ts";
import { addressBlock } from "./address_block.ts";
import type { LoginAttempt, LoginAttemptStore } from "./login_attempts.ts";
import { MemoryLoginAttempts } from "./memory_login_attempts.ts";

/** Failed logins of one user from one address in the window, unless `SVC_API_LOGIN_FAILURES_PER_USER_ADDRESS` says otherwise. */
export const DEFAULT_FAILURES_PER_USER_ADDRESS: number = numberDefault(
  "SVC_API_LOGIN_FAILURES_PER_USER_ADDRESS",
);
/** Failed logins from one address in the window, unless `SVC_API_LOGIN_FAILURES_PER_ADDRESS` says otherwise. */
export const DEFAULT_FAILURES_PER_ADDRESS: number = numberDefault(
  "SVC_API_LOGIN_FAILURES_PER_ADDRESS",
);
/** Failed logins of one user from all addresses in the window, unless `SVC_API_LOGIN_FAILURES_PER_USER` says otherwise. */
export const DEFAULT_FAILURES_PER_USER: number = numberDefault("SVC_API_LOGIN_FAILURES_PER_USER");
/** The window, in seconds, unless `SVC_API_LOGIN_FAILURE_WINDOW` says otherwise: 15 minutes. */
export const DEFAULT_FAILURE_WINDOW: number = numberDefault("SVC_API_LOGIN_FAILURE_WINDOW");

/** Options of {@linkcode LoginLimits}. */
export interface LoginLimitsOptions {
  /** @default {env SVC_API_LOGIN_FAILURES_PER_USER_ADDRESS, else 10} */
  perUserAddress?: number;
  /** @default {env SVC_API_LOGIN_FAILURES_PER_ADDRESS, else 30} */
  perAddress?: number;
  /** @default {env SVC_API_LOGIN_FAILURES_PER_USER, else 100} */
  perUser?: number;
  /** Seconds. @default {env SVC_API_LOGIN_FAILURE_WINDOW, else 900} */
  window?: number;
  /** The clock, for tests. */
  now?: () => number;
  /**
   * The environment svc read at start, where the options above not given are read.
   * @default {{}}
   */
  env?: Env;
}

/**
 * Counts logins in a sliding window, in a {@linkcode LoginAttemptStore}: the
 * process's memory until {@linkcode LoginLimits.countIn} gives it the API's
 * database. A login is let through by {@linkcode LoginLimits.reserve}, and
 * counts as a failure unless {@linkcode LoginLimits.succeeded} says otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LoginLimits } from "./login_limits.ts";
 * const limits = new LoginLimits({ perUserAddress: 2, perAddress: 10, perUser: 5, window: 60 });
 * await limits.reserve("ada", "10.0.0.1");
 * await limits.reserve("ada", "10.0.0.1");
 * await assert.rejects(
 *   limits.reserve("ada", "10.0.0.1"),
 *   /Too many failed logins for "ada" from the address 10.0.0.1/,
 * );
 * // Not from another address: the user is not locked out.
 * const attempt = await limits.reserve("ada", "10.0.0.2");
 * await limits.succeeded(attempt);
 * ```
 */
export class LoginLimits {
  readonly perUserAddress: number;
  readonly perAddress: number;
  readonly perUser: number;
  readonly window: number;
  readonly #now: () => number;
  #store: LoginAttemptStore = new MemoryLoginAttempts();

  /** @throws {SvcError} naming a variable whose value is not a positive number */
  constructor(options: LoginLimitsOptions = {}) {
    const env = options.env ?? {};
    this.perUserAddress = options.perUserAddress ??
      envNumber("SVC_API_LOGIN_FAILURES_PER_USER_ADDRESS", {
        fallback: DEFAULT_FAILURES_PER_USER_ADDRESS,
        env,
      });
    this.perAddress = options.perAddress ??
      envNumber("SVC_API_LOGIN_FAILURES_PER_ADDRESS", {
        fallback: DEFAULT_FAILURES_PER_ADDRESS,
        env,
      });
    this.perUser = options.perUser ??
      envNumber("SVC_API_LOGIN_FAILURES_PER_USER", { fallback: DEFAULT_FAILURES_PER_USER, env });
    this.window = options.window ??
      envNumber("SVC_API_LOGIN_FAILURE_WINDOW", {
        fallback: DEFAULT_FAILURE_WINDOW,
        unit: "seconds",
        env,
      });
    this.#now = options.now ?? Date.now;
  }

  /** Counts the logins in `store` from now on (the API's database, shared by its replicas). */
  countIn(store: LoginAttemptStore): void {
    this.#store = store;
  }

  /**
   * Lets a login of `user` from `address` be checked, counting it as a
   * failure until it succeeds, or refuses it.
   * @throws {RetryLaterError} 429 naming the limit reached, and when to try again
   */
  async reserve(user: string, address: string | undefined): Promise<LoginAttempt> {
    const block = address === undefined ? undefined : addressBlock(address);
    const now = this.#now();
    const since = now - this.window * 1000;
    const attempt = { id: crypto.randomUUID(), user, address: block?.key ?? "", at: now };
    const reservation = await this.#store.reserveLoginAttempt(attempt, {
      since,
      perUserAddress: this.perUserAddress,
      // An unknown address (a call without a socket) is no client of its own.
      perAddress: block ? this.perAddress : Number.MAX_SAFE_INTEGER,
      perUser: this.perUser,
    });
    if (reservation.reserved) return attempt;
    const { counts } = reservation;
    const limits: Limit[] = [
      {
        count: counts.userAddress,
        limit: this.perUserAddress,
        of: { user, address: attempt.address },
        whose: `for ${quote(user)}${block ? ` from ${block.words}` : ""}`,
      },
      {
        count: counts.address,
        limit: this.perAddress,
        of: { address: attempt.address },
        whose: `from ${block?.words}`,
      },
      {
        count: counts.user,
        limit: this.perUser,
        of: { user },
        whose: `for ${quote(user)} from all addresses together`,
        remedy: ', or ask an administrator to run "svc user unlock"',
      },
    ];
    const { count, limit, of, whose, remedy = "" } =
      limits.find(({ count, limit }) => count >= limit) ?? limits[0]!;
    const times = await this.#store.loginAttemptTimes(of, since);
    // The oldest attempt whose end of window leaves room for one more.
    const freed = times[times.length - limit] ?? now;
    const wait = (freed + this.window * 1000 - now) / 1000;
    const seconds = Math.max(1, Math.ceil(wait));
    throw new RetryLaterError(
      `Too many failed logins ${whose}: ${count} in ${minutes(this.window)}; try again in ` +
        `${seconds} s${remedy}`,
      wait,
    );
  }

  /** Takes back a login that succeeded, and the failures of its user from its address before it. */
  async succeeded(attempt: LoginAttempt): Promise<void> {
    await this.#store.clearLoginAttempts(attempt.user, attempt.address);
  }
}

/** A limit of {@linkcode LoginLimits}, as a refusal tells of it. */
interface Limit {
  /** The logins in the window that it counts. */
  count: number;
  limit: number;
  /** Which logins it counts. */
  of: { user?: string; address?: string };
  /** Whose logins, in words. */
  whose: string;
  /** What else can be done than to wait, in words. */
  remedy?: string;
}

function minutes(seconds: number): string {
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}
