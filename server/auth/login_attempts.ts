/**
 * What the limits of failed logins (`login_limits.ts`) count, and what a
 * store of the counts does: the API's database, or a process's memory.
 * @module
 */
/** A login as the limits count it. */
export interface LoginAttempt {
  /** The attempt's own id, random. */
  id: string;
  /** The username as it is counted: normalised where it can be. */
  user: string;
  /** The client's block of addresses (`address_block.ts`), or `""` when unknown. */
  address: string;
  /** Milliseconds since the epoch. */
  at: number;
}

/** How many attempts the window may hold before one more is refused, and where it starts. */
export interface AttemptLimits {
  /** Attempts after this time (milliseconds) count. */
  since: number;
  /** Of the attempt's user from its address. */
  perUserAddress: number;
  /** From its address, whichever users they name. */
  perAddress: number;
  /** Of its user, from every address. */
  perUser: number;
}

/** The attempts in the window before one, by what they share with it. */
export interface AttemptCounts {
  userAddress: number;
  address: number;
  user: number;
}

/** Whether an attempt was counted, and if not, what the window held. */
export type Reservation = { reserved: true } | { reserved: false; counts: AttemptCounts };

/**
 * Where logins are counted: the API's database (every replica then counts
 * them all), or a process's memory (`MemoryLoginAttempts`).
 */
export interface LoginAttemptStore {
  /**
   * Counts the attempt, unless the window holds as many attempts as a limit
   * allows already; checked and counted in one step, so that attempts made at
   * once never pass a limit together. Attempts until `limits.since` may go.
   */
  reserveLoginAttempt(attempt: LoginAttempt, limits: AttemptLimits): Promise<Reservation>;
  /** The times of the attempts after `since` of a user, or from an address, or both, oldest first. */
  loginAttemptTimes(of: { user?: string; address?: string }, since: number): Promise<number[]>;
  /** Forgets the attempts of a user, from one address or from all; how many there were. */
  clearLoginAttempts(user: string, address?: string): Promise<number>;
}
