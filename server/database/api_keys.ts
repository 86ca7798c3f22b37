/**
 * The SQL of API keys: each a row with its owner, its name, the first
 * characters of the key and the SHA-256 of the whole key, never the key.
 * @module
 */
import type { InStatement, ResultSet, Transaction } from "@libsql/client";
import { quote, SvcError } from "../../components/core/errors.ts";
import { runSteps, type Step } from "./steps.ts";

/** An API key as its owner lists it: never the key itself. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  /** The first characters of the key, to recognise it by. */
  prefix: string;
  /** Seconds since the epoch. */
  created: number;
  /** Seconds since the epoch, to the precision the keys keep it; `null` while never used. */
  lastUsed: number | null;
}

/** A new API key as it is stored: its record and the hash of the key. */
export interface StoredApiKey extends Omit<ApiKeyRecord, "lastUsed"> {
  /** The SHA-256 of the key, in hex. */
  hash: string;
}

/** Whose an API key is, as its hash finds it. */
export interface ApiKeyOwner {
  id: string;
  user: string;
  lastUsed: number | null;
}

/**
 * Stores a new API key of the user whose key is `userSeq`.
 * @throws {SvcError} 429 when the user has `maxKeys` keys already
 */
export async function insertApiKey(
  tx: Transaction,
  userSeq: number,
  key: StoredApiKey,
  maxKeys: number,
): Promise<void> {
  const counted = await tx.execute({
    sql: "SELECT count(*) AS n FROM api_keys WHERE user_seq = ?",
    args: [userSeq],
  });
  if (Number(counted.rows[0]?.n ?? 0) >= maxKeys) {
    throw new SvcError(
      `You have ${maxKeys} API keys, the most a user may have: revoke one before creating another`,
      { status: 429 },
    );
  }
  await runSteps(tx, [{
    sql: `INSERT INTO api_keys (id, user_seq, name, prefix, hash, created, last_used)
      VALUES (?, ?, ?, ?, ?, ?, NULL)`,
    args: [key.id, userSeq, key.name, key.prefix, key.hash, key.created],
    action: `save the API key ${quote(key.name)}`,
  }]);
}

/** The query for a user's API keys, oldest first; read it with {@linkcode toApiKeys}. */
export function apiKeysQuery(user: string): InStatement {
  return {
    sql: `SELECT k.id, k.name, k.prefix, k.created, k.last_used
      FROM api_keys k JOIN users u ON u.seq = k.user_seq WHERE u.name = ? ORDER BY k.seq`,
    args: [user],
  };
}

/** The API keys of {@linkcode apiKeysQuery}. */
export function toApiKeys(result: ResultSet): ApiKeyRecord[] {
  return result.rows.map((row) => ({
    id: String(row.id),
    name: String(row.name),
    prefix: String(row.prefix),
    created: Number(row.created),
    lastUsed: row.last_used === null ? null : Number(row.last_used),
  }));
}

/** The query for the owner of the key with this hash: one row or none. */
export function apiKeyOwnerQuery(hash: string): InStatement {
  return {
    sql: `SELECT k.id, u.name, k.last_used FROM api_keys k JOIN users u ON u.seq = k.user_seq
      WHERE k.hash = ?`,
    args: [hash],
  };
}

/** The owner of {@linkcode apiKeyOwnerQuery}, or `undefined`. */
export function toApiKeyOwner(result: ResultSet): ApiKeyOwner | undefined {
  const row = result.rows[0];
  if (row === undefined) return undefined;
  return {
    id: String(row.id),
    user: String(row.name),
    lastUsed: row.last_used === null ? null : Number(row.last_used),
  };
}

/**
 * Revokes the user's API key: its row goes, so that the key is refused at
 * once by every process that reads the database.
 * @throws {SvcError} 404 for a missing or another user's key
 */
export async function deleteApiKey(tx: Transaction, user: string, id: string): Promise<void> {
  const result = await tx.execute({
    sql: `DELETE FROM api_keys
      WHERE id = ? AND user_seq = (SELECT seq FROM users WHERE name = ?)`,
    args: [id, user],
  });
  if (result.rowsAffected === 0) {
    throw new SvcError(`No API key ${quote(id)}`, { status: 404 });
  }
}

/** Records when a key was last used. */
export async function touchApiKey(tx: Transaction, id: string, now: number): Promise<void> {
  await runSteps(tx, [{
    sql: "UPDATE api_keys SET last_used = ? WHERE id = ?",
    args: [now, id],
    action: "record when the API key was used",
  }]);
}

/** The step that revokes every API key of the user whose key is `userSeq`. */
export function revokeApiKeysStep(userSeq: number, user: string): Step {
  return {
    sql: "DELETE FROM api_keys WHERE user_seq = ?",
    args: [userSeq],
    action: `revoke the API keys of ${quote(user)}`,
  };
}
