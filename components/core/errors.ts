/**
 * svc's one error family, `SvcError`, with `quote()` and `excerpt()` for the
 * values its messages name, `unreadable()` for a document that cannot be
 * read and `unavailable()` for a store or server that cannot be used now.
 * @module
 */
import { redactUrls } from "./redact_url.ts";
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
  const { head: headLength = HEAD, tail: tailLength = TAIL } = options;
  if (text.length <= headLength + tailLength + 1) return text;
  const reach = readPastCut();
  let head = redact(text.slice(0, headLength + reach)).slice(0, headLength);
  let tail = tailLength > 0 ? redact(text.slice(-(tailLength + reach))).slice(-tailLength) : "";
  // Never half a surrogate pair.
  if (isHighSurrogate(head.charCodeAt(head.length - 1))) head = head.slice(0, -1);
  if (isLowSurrogate(tail.charCodeAt(0))) tail = tail.slice(1);
  return `${head}…${tail}`;
}

/**
 * A value as JSON, as a message may quote it: the {@linkcode excerpt} of its JSON text. Each long
 * string in it is cut to its ends before the value is written out, so that a value of a megabyte
 * costs what one of a few kilobytes does; what the excerpt shows is the same.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonExcerpt } from "./errors.ts";
 * assert.equal(jsonExcerpt({ size: 500 }), '{"size":500}');
 * assert.equal(jsonExcerpt("C".repeat(900_000)), `"${"C".repeat(99)}…${"C".repeat(39)}"`);
 * ```
 */
export function jsonExcerpt(value: unknown): string {
  // The first and last `keep` characters of a string hold all that the excerpt reads of the
  // text's ends: writing them out as JSON only makes them longer.
  const keep = HEAD + readPastCut();
  const cut = (text: string) =>
    text.length > 2 * keep ? text.slice(0, keep) + text.slice(-keep) : text;
  const json = typeof value === "string"
    ? JSON.stringify(cut(value))
    : JSON.stringify(value, (_key, item) => typeof item === "string" ? cut(item) : item);
  return excerpt(json ?? String(value));
}

/** The characters an excerpt keeps of the start of a long text, and of its end, by default. */
const HEAD = 100;
const TAIL = 40;

/**
 * How far an excerpt reads past each cut: by the longest secret, so that one across it is whole
 * in what is read, and by a long credential's length, so that it is not cut too short to be known
 * as one.
 */
function readPastCut(): number {
  return Math.max(secrets.longest, 64);
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

/**
 * The error for a store or server that cannot be used now, an outage rather
 * than a fault of the request: `what`, then why, with the secrets of `url`
 * (its password, its token) hidden.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unavailable } from "./errors.ts";
 * const url = "http://ada:hunter2@db-box:8080";
 * const error = unavailable('Cannot open the database "db-box"', new Error(`${url} refused`), url);
 * assert.equal(error.status, 503);
 * assert.ok(!error.message.includes("hunter2"), error.message);
 * ```
 */
export function unavailable(what: string, cause: unknown, url?: string): SvcError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new SvcError(
    `${what}: ${url === undefined ? why : redactUrls(why, { secretsOf: [url] })}`,
    {
      status: 503,
      cause,
    },
  );
}
