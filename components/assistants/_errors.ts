/**
 * The errors of model assistants, in one voice: a provider's refusal is a 502
 * that passes on its status and its own words, a provider that keeps silent
 * is a 504.
 * @module
 */
import { excerpt as cutShort, quote, SvcError } from "../core/errors.ts";
import { redactUrl, redactUrls } from "../core/redact_url.ts";
import { redact } from "../core/secrets.ts";
import { shorten } from "../shorten.ts";

/** The most of a provider's own words an error shows, in characters. */
const PROVIDER_WORDS = 300;

/** Options of the errors of this module. */
export interface CauseOptions {
  /** The error that led to this one. */
  cause?: unknown;
}

/** What a provider answered instead of a stream. */
export interface ProviderAnswer extends CauseOptions {
  /** The provider's HTTP status. */
  httpStatus: number;
  /** The provider's own message; empty when it gave none. */
  message: string;
  /** How long the provider asked to wait before trying again, in milliseconds. */
  retryAfter?: number;
}

/**
 * A provider answered with an error. The REST API answers 502; `httpStatus`
 * is the provider's own status, which decides whether to try again. The
 * message is redacted (see `secrets.ts`): a provider or a gateway that echoes
 * the request shows neither the key, nor an `Authorization` header, nor a
 * URL's user name, password, query and fragment.
 */
export class ProviderError extends SvcError {
  /** The provider, as the assistant's display name names it: `OpenAI`. */
  readonly provider: string;
  /** The provider's HTTP status; `undefined` for an error inside a stream. */
  readonly httpStatus?: number;
  /** How long the provider asked to wait before trying again, in milliseconds. */
  readonly retryAfter?: number;

  constructor(
    provider: string,
    message: string,
    options: Partial<Omit<ProviderAnswer, "message">> = {},
  ) {
    super(redact(message), { status: 502, cause: options.cause });
    this.name = "ProviderError";
    this.provider = provider;
    this.httpStatus = options.httpStatus;
    this.retryAfter = options.retryAfter;
  }

  /** Whether trying again may help: the provider was busy (429) or failed (5xx). */
  get retryable(): boolean {
    return this.httpStatus !== undefined && (this.httpStatus === 429 || this.httpStatus >= 500);
  }
}

/**
 * The error for a provider's HTTP error: `OpenAI answered 401: Incorrect API key provided`.
 * The provider's message is cut to its first 300 characters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { providerError } from "./_errors.ts";
 * const error = providerError("OpenAI", { httpStatus: 429, message: "Rate limit reached" });
 * assert.equal(error.message, "OpenAI answered 429: Rate limit reached");
 * assert.equal(error.status, 502);
 * assert.ok(error.retryable);
 * ```
 */
export function providerError(provider: string, answer: ProviderAnswer): ProviderError {
  const { httpStatus, message, ...options } = answer;
  const said = message.trim() ? `: ${providerWords(message)}` : ", without saying why";
  return new ProviderError(provider, `${provider} answered ${httpStatus}${said}`, {
    ...options,
    httpStatus,
  });
}

/** The error for an error event inside a stream: `Ollama answered with an error: out of memory`. */
export function streamError(
  provider: string,
  message: string,
  options: CauseOptions = {},
): ProviderError {
  return new ProviderError(
    provider,
    `${provider} answered with an error: ${providerWords(message)}`,
    options,
  );
}

/** The error for a provider that was tried more than once: the last error, with the count. */
export function gaveUp(error: ProviderError, tries: number): ProviderError {
  return new ProviderError(error.provider, `${error.message} (tried ${tries} times)`, {
    httpStatus: error.httpStatus,
    retryAfter: error.retryAfter,
    cause: error,
  });
}

/**
 * The error for stream data that does not follow the provider's format:
 * `OpenAI sent malformed stream data: a line is not JSON: "{oops"`.
 */
export function malformed(
  provider: string,
  problem: string,
  options: CauseOptions = {},
): ProviderError {
  return new ProviderError(provider, `${provider} sent malformed stream data: ${problem}`, options);
}

/**
 * The error for a provider that cannot be reached. The URL is shown without
 * its user name, password, query and fragment, which may hold a key, and so
 * is any URL in the cause's message (fetch names the URL it was given).
 */
export function unreachable(
  provider: string,
  url: string,
  options: CauseOptions = {},
): ProviderError {
  const { cause } = options;
  const why = cause instanceof Error ? `: ${redactUrls(cause.message, { secretsOf: [url] })}` : "";
  return new ProviderError(
    provider,
    `Cannot reach ${provider} at ${quote(redactUrl(url))}${why}`,
    options,
  );
}

/**
 * The error for a provider that kept silent, as a 504: before the first text
 * `OpenAI did not answer within 60 s`, after it `OpenAI stopped answering for 60 s`.
 */
export function timeoutError(
  provider: string,
  milliseconds: number,
  options: { started?: boolean } = {},
): SvcError {
  const seconds = `${Number((milliseconds / 1000).toFixed(3))} s`;
  const message = options.started
    ? `${provider} stopped answering for ${seconds}`
    : `${provider} did not answer within ${seconds}`;
  return new SvcError(message, { status: 504 });
}

/** A provider's own words as an error shows them: trimmed, cut short. */
function providerWords(message: string): string {
  return cutShort(message.trim(), { head: PROVIDER_WORDS, tail: 0 });
}

/**
 * The provider's own message in an error body, whatever its shape:
 * `{"error":{"message"}}` (OpenAI, Anthropic, Gemini), `{"error":"..."}`
 * (Ollama), `{"message"}` (Cohere), `{"detail"}` (AI21), else the first line
 * of a body that is not JSON, when it reads as words. Nothing else of the
 * body shows: a server that echoes the request would show it whole, the key
 * in its headers included.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { providerMessage } from "./_errors.ts";
 * assert.equal(providerMessage('{"error":"model \'x\' not found"}'), "model 'x' not found");
 * assert.equal(providerMessage('{"error":{"message":"Bad key","type":"x"}}'), "Bad key");
 * ```
 */
export function providerMessage(body: unknown): string {
  if (typeof body === "string") {
    const text = body.trim();
    try {
      return providerMessage(JSON.parse(text));
    } catch {
      return plainMessage(text);
    }
  }
  if (Array.isArray(body)) return providerMessage(body[0]);
  if (typeof body !== "object" || body === null) return "";
  const record = body as Record<string, unknown>;
  for (const key of ["error", "message", "detail", "error_message"]) {
    const value = record[key];
    if (typeof value === "string" && value.trim()) return value.trim();
    if (typeof value === "object" && value !== null) {
      const nested = providerMessage(value);
      if (nested) return nested;
    }
  }
  return "";
}

/**
 * The first line of a body that is not JSON, when it reads as words
 * (`Bad Gateway`, `404 page not found`); none for markup or data, such as an
 * HTML page or an echoed request.
 */
function plainMessage(text: string): string {
  const end = text.indexOf("\n");
  const line = (end < 0 ? text : text.slice(0, end)).trim();
  if (line.startsWith("<") || line.includes("{") || line.includes("[")) return "";
  return shorten(line, PROVIDER_WORDS);
}

/**
 * How long a response asks to wait before trying again, in milliseconds:
 * `retry-after-ms`, else `Retry-After` in seconds or as an HTTP date.
 */
export function retryAfter(headers: Headers | undefined): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** A piece of stream data as a message shows it: JSON, cut to 120 characters. */
export function excerpt(value: unknown): string {
  return shorten(JSON.stringify(value) ?? String(value), 120);
}
