/**
 * Logins counted in one process's memory: for an authentication used
 * without the API's database (a script, a test). Each check and count is
 * synchronous, so it is one step that nothing else can come between.
 * @module
 */
import type {
  AttemptLimits,
  LoginAttempt,
  LoginAttemptStore,
  Reservation,
} from "./login_attempts.ts";

/** How many users and addresses are remembered at most; those counted longest ago go first. */
const MAX_KEYS = 100_000;

/**
 * The attempts in the window of each user and each address. A list never
 * holds more than its limit allows, since a refused attempt is not counted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryLoginAttempts } from "./memory_login_attempts.ts";
 * const store = new MemoryLoginAttempts();
 * const limits = { since: 0, perUserAddress: 1, perAddress: 10, perUser: 10 };
 * const attempt = { id: "1", user: "ada", address: "10.0.0.1", at: 1 };
 * assert.equal((await store.reserveLoginAttempt(attempt, limits)).reserved, true);
 * const again = await store.reserveLoginAttempt({ ...attempt, id: "2" }, limits);
 * assert.deepEqual(again, { reserved: false, counts: { userAddress: 1, address: 1, user: 1 } });
 * ```
 */
export class MemoryLoginAttempts implements LoginAttemptStore {
  // Keyed "user:<name>" and "address:<block>", the most recently counted last.
  readonly #attempts = new Map<string, LoginAttempt[]>();

  reserveLoginAttempt(attempt: LoginAttempt, limits: AttemptLimits): Promise<Reservation> {
    const byUser = this.#recent(`user:${attempt.user}`, limits.since);
    const byAddress = this.#recent(`address:${attempt.address}`, limits.since);
    const counts = {
      userAddress: byUser.filter((old) => old.address === attempt.address).length,
      address: byAddress.length,
      user: byUser.length,
    };
    const reserved = counts.userAddress < limits.perUserAddress &&
      counts.address < limits.perAddress && counts.user < limits.perUser;
    if (!reserved) return Promise.resolve({ reserved, counts });
    this.#keep(`user:${attempt.user}`, [...byUser, attempt]);
    this.#keep(`address:${attempt.address}`, [...byAddress, attempt]);
    return Promise.resolve({ reserved });
  }

  loginAttemptTimes(of: { user?: string; address?: string }, since: number): Promise<number[]> {
    const list = of.user === undefined
      ? this.#recent(`address:${of.address}`, since)
      : this.#recent(`user:${of.user}`, since)
        .filter((old) => of.address === undefined || old.address === of.address);
    return Promise.resolve(list.map((old) => old.at));
  }

  clearLoginAttempts(user: string, address?: string): Promise<number> {
    const mine = this.#attempts.get(`user:${user}`) ?? [];
    const gone = mine.filter((old) => address === undefined || old.address === address);
    const ids = new Set(gone.map((old) => old.id));
    for (const block of new Set(gone.map((old) => old.address))) {
      const left = (this.#attempts.get(`address:${block}`) ?? []).filter((old) => !ids.has(old.id));
      this.#set(`address:${block}`, left);
    }
    this.#set(`user:${user}`, mine.filter((old) => !ids.has(old.id)));
    return Promise.resolve(gone.length);
  }

  #recent(key: string, since: number): LoginAttempt[] {
    return (this.#attempts.get(key) ?? []).filter((old) => old.at > since);
  }

  /** Keeps a key's attempts as the most recently counted, and forgets the oldest keys past the bound. */
  #keep(key: string, attempts: LoginAttempt[]): void {
    this.#attempts.delete(key);
    this.#attempts.set(key, attempts);
    while (this.#attempts.size > MAX_KEYS) {
      this.#attempts.delete(this.#attempts.keys().next().value!);
    }
  }

  #set(key: string, attempts: LoginAttempt[]): void {
    if (attempts.length === 0) this.#attempts.delete(key);
    else if (this.#attempts.has(key)) this.#attempts.set(key, attempts);
  }
}
