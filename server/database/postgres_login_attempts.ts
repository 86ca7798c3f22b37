/**
 * The SQL of the logins counted against the limits of failed logins
 * (`server/auth/login_limits.ts`), on PostgreSQL. Two transactions read
 * their counts apart there, so each first takes a lock of its user and of its
 * address, held until it ends: the attempts of one user or one address are
 * then counted one after the other, on every replica.
 * @module
 */
import type * as Postgres from "npm:postgres@3.4.9";
import type { AttemptLimits, LoginAttempt, Reservation } from "../auth/login_attempts.ts";
import { toCounts } from "./login_attempts.ts";

type Tx = Postgres.TransactionSql;

/** Counts the attempt unless a limit is reached, inside a transaction; the attempts that left the window go. */
export async function reserveAttempt(
  tx: Tx,
  attempt: LoginAttempt,
  limits: AttemptLimits,
): Promise<Reservation> {
  const { id, user, address, at } = attempt;
  const { since } = limits;
  // Always the user's lock first, then the address's, so that two attempts never wait for each other.
  await tx`SELECT pg_advisory_xact_lock(hashtext(${`svc login user ${user}`}))`;
  await tx`SELECT pg_advisory_xact_lock(hashtext(${`svc login address ${address}`}))`;
  await tx`DELETE FROM login_attempts WHERE at <= ${since}`;
  const inserted = await tx`INSERT INTO login_attempts (id, user_name, address, at)
    SELECT ${id}::text, ${user}::text, ${address}::text, ${at}::bigint WHERE
      (SELECT count(*) FROM login_attempts
        WHERE user_name = ${user} AND address = ${address} AND at > ${since})
        < ${limits.perUserAddress}
      AND (SELECT count(*) FROM login_attempts WHERE address = ${address} AND at > ${since})
        < ${limits.perAddress}
      AND (SELECT count(*) FROM login_attempts WHERE user_name = ${user} AND at > ${since})
        < ${limits.perUser}`;
  if (inserted.count === 1) return { reserved: true };
  const [row] = await tx`SELECT
    (SELECT count(*) FROM login_attempts
      WHERE user_name = ${user} AND address = ${address} AND at > ${since}) AS user_address,
    (SELECT count(*) FROM login_attempts WHERE address = ${address} AND at > ${since}) AS address,
    (SELECT count(*) FROM login_attempts WHERE user_name = ${user} AND at > ${since})
      AS user_count`;
  return { reserved: false, counts: toCounts(row) };
}

/** The times of the attempts of a user, from an address, or both, after `since`, oldest first. */
export async function attemptTimes(
  sql: Postgres.Sql,
  of: { user?: string; address?: string },
  since: number,
): Promise<number[]> {
  const rows = await sql`SELECT at FROM login_attempts WHERE at > ${since}
    ${of.user === undefined ? sql`` : sql`AND user_name = ${of.user}`}
    ${of.address === undefined ? sql`` : sql`AND address = ${of.address}`}
    ORDER BY at`;
  return rows.map((row) => Number(row.at));
}

/** Forgets the attempts of a user, from one address or all, inside a transaction; how many. */
export async function clearAttempts(
  tx: Tx,
  user: string,
  address: string | undefined,
): Promise<number> {
  const deleted = address === undefined
    ? await tx`DELETE FROM login_attempts WHERE user_name = ${user}`
    : await tx`DELETE FROM login_attempts WHERE user_name = ${user} AND address = ${address}`;
  return deleted.count;
}
