/**
 * What PostgreSQL (or the connection to it) says when a statement fails, as
 * the `SvcError` that libSQL's failures give (`databaseError`), so that the
 * API answers alike on either database.
 * @module
 */
import { SvcError } from "../../components/core/errors.ts";
import { connectionFaultWords, isConnectionFault } from "../../components/postgres_guard.ts";
import { reason } from "./steps.ts";

/** What the `postgres` package puts on a server's error. */
interface ServerError {
  code?: string;
  table_name?: string;
  detail?: string;
}

/**
 * An `SvcError` for a failure of PostgreSQL: 409 when a constraint refused
 * the data, with a duplicate named as SQLite names it (`UNIQUE constraint
 * failed: messages.id`); 422 for text PostgreSQL cannot store (a NUL
 * character); 507 when the server's disk is full; 503 when the
 * server cannot be reached, shuts down or refuses more connections, since
 * no request is at fault then; else 500. An `SvcError` passes unchanged.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { postgresError } from "./postgres_errors.ts";
 * const duplicate = Object.assign(new Error("duplicate key value"), {
 *   code: "23505",
 *   table_name: "messages",
 *   detail: "Key (id)=(m1) already exists.",
 * });
 * const error = postgresError('Cannot save message "m1"', duplicate);
 * assert.equal(error.status, 409);
 * assert.equal(error.message, 'Cannot save message "m1": UNIQUE constraint failed: messages.id');
 * ```
 */
export function postgresError(prefix: string, error: unknown): SvcError {
  if (error instanceof SvcError) return error;
  const { code = "", table_name: table, detail = "" } = (error ?? {}) as ServerError;
  if (code === "23505") {
    const columns = /^Key \(([^)]*)\)=/.exec(detail)?.[1]?.split(", ") ?? [];
    const named = columns.map((column) => `${table}.${column}`).join(", ");
    return new SvcError(`${prefix}: UNIQUE constraint failed: ${named || table}`, {
      status: 409,
      cause: error,
    });
  }
  if (code === "22021" || code === "22P05") {
    // PostgreSQL's text holds no NUL character, which SQLite's does.
    return new SvcError(
      `${prefix}: the text holds a character the database cannot store (${reason(error)})`,
      { status: 422, cause: error },
    );
  }
  if (code.startsWith("23")) {
    return new SvcError(`${prefix}: ${reason(error)}`, { status: 409, cause: error });
  }
  if (code === "53100") {
    return new SvcError("Cannot write to the database: the disk is full", {
      status: 507,
      cause: error,
    });
  }
  // Too many connections is the server's state too, not the request's.
  if (isConnectionFault(error) || code === "53300") {
    return new SvcError(`${prefix}: ${connectionFaultWords(error) ?? reason(error)}`, {
      status: 503,
      cause: error,
    });
  }
  return new SvcError(`${prefix}: ${reason(error)}`, { status: 500, cause: error });
}
