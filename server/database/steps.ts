/**
 * Running statements inside a write transaction, and turning what the
 * database says when it fails into an `SvcError` that names what was saved.
 * @module
 */
// Types only: the client itself is loaded where SQLite runs (the database thread for a file), and
// its errors are told apart by their fields, so that the main thread never loads it.
import type { InArgs, LibsqlBatchError, LibsqlError, Transaction } from "@libsql/client";
import { SvcError } from "../../components/core/errors.ts";
import { diskFaultError } from "../../components/disk_faults.ts";

/** A statement of a write, with what it does for the message if it fails: `save message "m1"`. */
export interface Step {
  sql: string;
  args: InArgs;
  action: string;
}

/**
 * Runs the steps in order in one round trip. A failing step is reported by
 * what it does; the caller's transaction is what undoes the earlier steps.
 */
export async function runSteps(tx: Transaction, steps: Step[]): Promise<void> {
  if (steps.length === 0) return;
  try {
    await tx.batch(steps.map(({ sql, args }) => ({ sql, args })));
  } catch (error) {
    const step = isBatchError(error) ? steps[error.statementIndex] : undefined;
    throw databaseError(`Cannot ${step?.action ?? "write to the database"}`, error);
  }
}

/**
 * An `SvcError` for a failure of the database: 409 when a constraint refused
 * the data (a duplicate id, say); 507 `Cannot write to the database: the disk
 * is full`, or 503 when the disk is read-only or refuses svc, since no request
 * is at fault then; else 500. An `SvcError` passes unchanged.
 */
export function databaseError(prefix: string, error: unknown): SvcError {
  if (error instanceof SvcError) return error;
  // Whatever the step, what could not be written is the database, and nothing of the write stays.
  const fault = diskFaultError("Cannot write to the database", error);
  if (fault) return fault;
  const constraint = isLibsqlError(error) && error.code.startsWith("SQLITE_CONSTRAINT");
  return new SvcError(`${prefix}: ${reason(error)}`, {
    status: constraint ? 409 : 500,
    cause: error,
  });
}

/**
 * What went wrong, without the error codes the client puts in front of it,
 * and with the causes that add something: a bare "fetch failed" says nothing
 * until its cause says that the connection was refused.
 */
export function reason(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    const text = (e instanceof Error ? e.message : String(e))
      .replace(/^(?:[A-Z][A-Z0-9_]*: )+/, "").replace(/\.$/, "");
    if (text !== "" && !parts.some((part) => part.includes(text))) parts.push(text);
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(": ");
}

/** A `LibsqlError` of the client: an error with a string `code` such as `SQLITE_BUSY`. */
function isLibsqlError(error: unknown): error is LibsqlError {
  return error instanceof Error && typeof (error as { code?: unknown }).code === "string";
}

/** A `LibsqlBatchError`: a `LibsqlError` that names the statement of the batch that failed. */
function isBatchError(error: unknown): error is LibsqlBatchError {
  return isLibsqlError(error) &&
    typeof (error as { statementIndex?: unknown }).statementIndex === "number";
}
