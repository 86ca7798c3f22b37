/**
 * svc's one error family, `SvcError`, with `quote()` for the values its
 * messages name and `unreadable()` for a document that cannot be read.
 * @module
 */
/**
 * The one error family of svc. Every failure a user can cause or meet is an
 * `SvcError` whose message says what was wrong; `status` is the HTTP status the
 * REST API answers with.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SvcError } from "@svc/svc";
 * const error = new SvcError('Cannot read "report.pdf": the file is encrypted', { status: 422 });
 * assert(error.status === 422);
 * ```
 */
export class SvcError extends Error {
  /** The HTTP status the REST API answers with. */
  readonly status: number;

  constructor(message: string, options: SvcErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "SvcError";
    this.status = options.status ?? 500;
  }
}

/** Options of {@linkcode SvcError}. */
export interface SvcErrorOptions {
  /**
   * The HTTP status the REST API answers with.
   * @default {500}
   */
  status?: number;
  /** The error that led to this one. */
  cause?: unknown;
}

/** Quotes a value for a message: `"report.pdf"`. */
export function quote(value: unknown): string {
  return JSON.stringify(String(value));
}

/**
 * The error for a document whose content cannot be turned into pages:
 * `Cannot read "report.pdf": the file is encrypted`.
 */
export function unreadable(name: string, problem: string, cause?: unknown): SvcError {
  return new SvcError(`Cannot read ${quote(name)}: ${problem}`, { status: 422, cause });
}
