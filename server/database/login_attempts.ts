/**
 * The SQL of the logins counted against the limits of failed logins
 * (`server/auth/login_limits.ts`), on libSQL. A write transaction of SQLite
 * is the only writer, so the count and the row it allows are one step.
 * @module
 */
import type { InStatement, Transaction } from "@libsql/client";
import type {
  AttemptCounts,
  AttemptLimits,
  LoginAttempt,
  Reservation,
} from "../auth/login_attempts.ts";

/**
 * The one statement that counts an attempt only while each limit leaves
 * room: an INSERT of a row chosen only when the three counts are below their
 * limits.
 */
const RESERVE_SQL = `INSERT INTO login_attempts (id, user_name, address, at)
  SELECT ?, ?, ?, ? WHERE
    (SELECT count(*) FROM login_attempts WHERE user_name = ? AND address = ? AND at > ?) < ?
    AND (SELECT count(*) FROM login_attempts WHERE address = ? AND at > ?) < ?
    AND (SELECT count(*) FROM login_attempts WHERE user_name = ? AND at > ?) < ?`;

function reserveArgs(attempt: LoginAttempt, limits: AttemptLimits): (string | number)[] {
  const { id, user, address, at } = attempt;
  const { since } = limits;
  return [
    ...[id, user, address, at],
    ...[user, address, since, limits.perUserAddress],
    ...[address, since, limits.perAddress],
    ...[user, since, limits.perUser],
  ];
}

// The counts of the window, for a refused attempt's message.
const COUNTS_SQL = `SELECT
    (SELECT count(*) FROM login_attempts WHERE user_name = ? AND address = ? AND at > ?)
      AS user_address,
    (SELECT count(*) FROM login_attempts WHERE address = ? AND at > ?) AS address,
    (SELECT count(*) FROM login_attempts WHERE user_name = ? AND at > ?) AS user_count`;

function countsArgs(attempt: LoginAttempt, since: number): (string | number)[] {
  const { user, address } = attempt;
  return [user, address, since, address, since, user, since];
}

/** The counts of a row with the columns `user_address`, `address` and `user_count`. */
export function toCounts(row: Record<string, unknown> | undefined): AttemptCounts {
  return {
    userAddress: Number(row?.user_address ?? 0),
    address: Number(row?.address ?? 0),
    user: Number(row?.user_count ?? 0),
  };
}

/** Counts the attempt unless a limit is reached, inside a write; the attempts that left the window go. */
export async function reserveAttempt(
  tx: Transaction,
  attempt: LoginAttempt,
  limits: AttemptLimits,
): Promise<Reservation> {
  await tx.execute({ sql: "DELETE FROM login_attempts WHERE at <= ?", args: [limits.since] });
  const inserted = await tx.execute({ sql: RESERVE_SQL, args: reserveArgs(attempt, limits) });
  if (inserted.rowsAffected === 1) return { reserved: true };
  const { rows } = await tx.execute({ sql: COUNTS_SQL, args: countsArgs(attempt, limits.since) });
  return { reserved: false, counts: toCounts(rows[0]) };
}

/** The query for the times of the attempts of a user, from an address, or both, after `since`. */
export function attemptTimesQuery(
  of: { user?: string; address?: string },
  since: number,
): InStatement {
  const where = ["at > ?"];
  const args: (string | number)[] = [since];
  if (of.user !== undefined) {
    where.push("user_name = ?");
    args.push(of.user);
  }
  if (of.address !== undefined) {
    where.push("address = ?");
    args.push(of.address);
  }
  return {
    sql: `SELECT at FROM login_attempts WHERE ${where.join(" AND ")} ORDER BY at`,
    args,
  };
}

/** Forgets the attempts of a user, from one address or all, inside a write; how many. */
export async function clearAttempts(
  tx: Transaction,
  user: string,
  address: string | undefined,
): Promise<number> {
  const result = address === undefined
    ? await tx.execute({ sql: "DELETE FROM login_attempts WHERE user_name = ?", args: [user] })
    : await tx.execute({
      sql: "DELETE FROM login_attempts WHERE user_name = ? AND address = ?",
      args: [user, address],
    });
  return result.rowsAffected;
}
