/**
 * The SQL of sign-in: the accounts of password sign-in (a user and the hash
 * of its password) and the sessions that every session token names.
 * @module
 */
import type { InStatement, ResultSet, Transaction } from "@libsql/client";
import { quote, SvcError } from "../../components/core/errors.ts";
import { revokeApiKeysStep } from "./api_keys.ts";
import { runSteps } from "./steps.ts";

/** An account as `svc user list` shows it. */
export interface AccountRecord {
  user: string;
  /** When the account was made, and its password last set: seconds since the epoch. */
  created: number;
  updated: number;
  /** How many sessions of the user are open (not ended, not expired). */
  sessions: number;
}

/** A session as a token names it. */
export interface SessionRecord {
  /** The id the token carries. */
  id: string;
  user: string;
  /** Seconds since the epoch. */
  created: number;
  expires: number;
}

/** Stores the account of the user whose key is `userSeq`; 409 when it has one. */
export async function insertAccount(
  tx: Transaction,
  userSeq: number,
  user: string,
  hash: string,
  now: number,
): Promise<void> {
  const taken = await tx.execute({
    sql: "SELECT 1 FROM accounts WHERE user_seq = ?",
    args: [userSeq],
  });
  if (taken.rows.length > 0) {
    throw new SvcError(
      `The user ${quote(user)} has an account already: change its password with "svc user passwd"`,
      { status: 409 },
    );
  }
  await runSteps(tx, [{
    sql: "INSERT INTO accounts (user_seq, password_hash, created, updated) VALUES (?, ?, ?, ?)",
    args: [userSeq, hash, now, now],
    action: `save the account of ${quote(user)}`,
  }]);
}

/**
 * Sets the password of the user's account and ends its sessions, which the
 * old password opened; 404 when the user has no account.
 */
export async function updatePassword(
  tx: Transaction,
  user: string,
  hash: string,
  now: number,
): Promise<void> {
  const seq = await accountSeq(tx, user);
  await runSteps(tx, [
    {
      sql: "UPDATE accounts SET password_hash = ?, updated = ? WHERE user_seq = ?",
      args: [hash, now, seq],
      action: `change the password of ${quote(user)}`,
    },
    endSessionsStep(seq, user),
  ]);
}

/**
 * Removes the user's account, ends its sessions and revokes its API keys; its
 * documents and chats stay. 404 when the user has no account.
 */
export async function deleteAccount(tx: Transaction, user: string): Promise<void> {
  const seq = await accountSeq(tx, user);
  await runSteps(tx, [
    {
      sql: "DELETE FROM accounts WHERE user_seq = ?",
      args: [seq],
      action: `remove the account of ${quote(user)}`,
    },
    endSessionsStep(seq, user),
    revokeApiKeysStep(seq, user),
  ]);
}

/**
 * Renames a user, inside a write, unless the new name is another user's;
 * whether it was renamed. Its data follows, being kept under its key; its
 * sessions end, since their tokens name the old name.
 */
export async function renameUser(tx: Transaction, from: string, to: string): Promise<boolean> {
  const renamed = await tx.execute({
    sql: `UPDATE users SET name = ? WHERE name = ?
      AND NOT EXISTS (SELECT 1 FROM users WHERE name = ?)`,
    args: [to, from, to],
  });
  if (renamed.rowsAffected === 0) return false;
  await tx.execute({
    sql: "DELETE FROM sessions WHERE user_seq = (SELECT seq FROM users WHERE name = ?)",
    args: [to],
  });
  return true;
}

/** The query for every account, by user name; read it with {@linkcode toAccounts}. */
export function accountsQuery(now: number): InStatement {
  return {
    sql: `SELECT u.name, a.created, a.updated,
        (SELECT count(*) FROM sessions s WHERE s.user_seq = a.user_seq AND s.expires > ?) AS open
      FROM accounts a JOIN users u ON u.seq = a.user_seq ORDER BY u.name`,
    args: [now],
  };
}

/** The accounts of {@linkcode accountsQuery}. */
export function toAccounts(result: ResultSet): AccountRecord[] {
  return result.rows.map((row) => ({
    user: String(row.name),
    created: Number(row.created),
    updated: Number(row.updated),
    sessions: Number(row.open),
  }));
}

/** The query for the password hash of a user, one row or none. */
export function passwordHashQuery(user: string): InStatement {
  return {
    sql: `SELECT a.password_hash FROM accounts a JOIN users u ON u.seq = a.user_seq
      WHERE u.name = ?`,
    args: [user],
  };
}

/** Stores a session of the user whose key is `userSeq`, and drops the sessions that expired. */
export async function insertSession(
  tx: Transaction,
  userSeq: number,
  session: SessionRecord,
): Promise<void> {
  await runSteps(tx, [
    {
      sql: "DELETE FROM sessions WHERE expires <= ?",
      args: [session.created],
      action: "remove the sessions that expired",
    },
    {
      sql: "INSERT INTO sessions (id, user_seq, created, expires) VALUES (?, ?, ?, ?)",
      args: [session.id, userSeq, session.created, session.expires],
      action: `start a session of ${quote(session.user)}`,
    },
  ]);
}

/** The query for the user of a session that has not ended or expired at `now`: one row or none. */
export function sessionQuery(id: string, now: number): InStatement {
  return {
    sql: `SELECT u.name, s.expires FROM sessions s JOIN users u ON u.seq = s.user_seq
      WHERE s.id = ? AND s.expires > ?`,
    args: [id, now],
  };
}

/** Ends a session; whether it was open. */
export async function deleteSession(tx: Transaction, id: string): Promise<boolean> {
  const result = await tx.execute({ sql: "DELETE FROM sessions WHERE id = ?", args: [id] });
  return result.rowsAffected > 0;
}

async function accountSeq(tx: Transaction, user: string): Promise<number> {
  const result = await tx.execute({
    sql: "SELECT a.user_seq FROM accounts a JOIN users u ON u.seq = a.user_seq WHERE u.name = ?",
    args: [user],
  });
  const row = result.rows[0];
  if (row === undefined) {
    throw new SvcError(`The user ${quote(user)} has no account: "svc user list" lists them`, {
      status: 404,
    });
  }
  return Number(row.user_seq);
}

function endSessionsStep(seq: number, user: string) {
  return {
    sql: "DELETE FROM sessions WHERE user_seq = ?",
    args: [seq],
    action: `end the sessions of ${quote(user)}`,
  };
}
