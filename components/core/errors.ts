/**
 * svc's one error family, `SvcError`, with `quote()` and `excerpt()` for the
 * values its messages name and `unreadable()` for a document that cannot be
 * read.
 * @module
 */
import { redact, secrets } from "./secrets.ts";

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

/**
 * Quotes a value for a message: `"report.pdf"`; a long one as its
 * {@linkcode excerpt}.
 */
export function quote(value: unknown): string {
  return JSON.stringify(excerpt(String(value)));
}

/** Options of {@linkcode excerpt}. */
export interface ExcerptOptions {
  /**
   * The characters kept of the start of a long text.
   * @default {100}
   */
  head?: number;
  /**
   * The characters kept of its end, where a file name's suffix is.
   * @default {40}
   */
  tail?: number;
}

/**
 * A text as a message may quote it: whole when it is short, else its first
 * 100 and last 40 characters (`options`) around a "…". What a client sent is cut so
 * before anything else reads it, so that no message, redaction or log line
 * ever costs more than a few hundred characters, however long the text. A
 * secret of the process (see `secrets.ts`) that the cut would halve is
 * hidden first: what is left of it could not be found afterwards.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { excerpt } from "./errors.ts";
 * assert.equal(excerpt("report.pdf"), "report.pdf");
 * const cut = excerpt(`${"A".repeat(64_000)}.pdf`);
 * assert.equal(cut, `${"A".repeat(100)}…${"A".repeat(36)}.pdf`);
 * ```
 */
export function excerpt(text: string, options: ExcerptOptions = {}): string {
  const { head: headLength = 100, tail: tailLength = 40 } = options;
  if (text.length <= headLength + tailLength + 1) return text;
  // Read past each cut by the longest secret, so that one across it is whole in what is read,
  // and by a long credential's length, so that it is not cut too short to be known as one.
  const reach = Math.max(secrets.longest, 64);
  let head = redact(text.slice(0, headLength + reach)).slice(0, headLength);
  let tail = tailLength > 0 ? redact(text.slice(-(tailLength + reach))).slice(-tailLength) : "";
  // Never half a surrogate pair.
  if (isHighSurrogate(head.charCodeAt(head.length - 1))) head = head.slice(0, -1);
  if (isLowSurrogate(tail.charCodeAt(0))) tail = tail.slice(1);
  return `${head}…${tail}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * The error for a document whose content cannot be turned into pages:
 * `Cannot read "report.pdf": the file is encrypted`.
 */
export function unreadable(name: string, problem: string, cause?: unknown): SvcError {
  return new SvcError(`Cannot read ${quote(name)}: ${problem}`, { status: 422, cause });
}
