/**
 * Plain HTTP for providers spoken to without an SDK: a JSON request whose
 * errors become {@linkcode ProviderError}s, and readers of the two streaming
 * formats providers use, JSON Lines and server-sent events.
 * @module
 */
import type * as EventSourceParser from "npm:eventsource-parser@4.1.3/stream";
import { importPackage } from "../packages.ts";
import { quote } from "../core/errors.ts";
import { shorten } from "../shorten.ts";
import { malformed, providerError, providerMessage, retryAfter, unreachable } from "./_errors.ts";

/** Options of {@linkcode postJson}. */
export interface PostJsonOptions {
  /** The provider, as messages name it: `Ollama`. */
  provider: string;
  /** Aborts the request, and the reading of its body. */
  signal: AbortSignal;
  /** More request headers, such as the key. */
  headers?: Record<string, string>;
}

/**
 * POSTs `body` as JSON and returns the response, which has a body.
 *
 * @throws {ProviderError} for an answer other than 2xx (its status, its own
 * message, its `Retry-After`) and for a server that cannot be reached; an
 * abort of `signal` is thrown as it is
 */
export async function postJson(
  url: string,
  body: unknown,
  options: PostJsonOptions,
): Promise<Response & { body: ReadableStream<Uint8Array> }> {
  const { provider, signal } = options;
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...options.headers },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw unreachable(provider, url, { cause: error });
  }
  if (!response.ok) {
    const text = await response.text().catch(() => "");
    throw providerError(provider, {
      httpStatus: response.status,
      message: providerMessage(text) || response.statusText,
      retryAfter: retryAfter(response.headers),
    });
  }
  if (!response.body) throw malformed(provider, "the answer has no body");
  return response as Response & { body: ReadableStream<Uint8Array> };
}

/**
 * The JSON values of a JSON Lines (NDJSON) stream, one a line, as they come;
 * blank lines are skipped.
 *
 * @throws {ProviderError} for a line that is not JSON
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonLines } from "./_http.ts";
 * const body = ReadableStream.from(['{"a":1}\n{"a"', ":2}\n"]).pipeThrough(new TextEncoderStream());
 * const values = await Array.fromAsync(jsonLines(body, "Example"));
 * assert.deepEqual(values, [{ a: 1 }, { a: 2 }]);
 * ```
 */
export async function* jsonLines(
  body: ReadableStream<Uint8Array>,
  provider: string,
): AsyncGenerator<unknown> {
  let rest = "";
  for await (const text of body.pipeThrough(new TextDecoderStream())) {
    const lines = (rest + text).split("\n");
    rest = lines.pop()!;
    for (const line of lines) {
      if (line.trim()) yield parseLine(line, provider);
    }
  }
  if (rest.trim()) yield parseLine(rest, provider);
}

function parseLine(line: string, provider: string): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    throw malformed(provider, `a line is not JSON: ${quote(shorten(line, 80))}`, {
      cause: error,
    });
  }
}

/** One server-sent event; `data` is parsed as JSON. */
export interface ServerSentEvent {
  /** The `event:` field; `undefined` when the event has none. */
  event?: string;
  /** The `data:` field, parsed as JSON. */
  data: unknown;
}

/**
 * The events of a server-sent event stream (`text/event-stream`), as they
 * come, with their data parsed as JSON. The data `[DONE]`, which OpenAI-like
 * APIs send last, ends the events.
 *
 * @throws {ProviderError} for data that is not JSON
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serverSentEvents } from "./_http.ts";
 * const text = 'event: delta\ndata: {"text":"Hi"}\n\ndata: [DONE]\n\n';
 * const body = ReadableStream.from([text]).pipeThrough(new TextEncoderStream());
 * const [event, ...rest] = await Array.fromAsync(serverSentEvents(body, "Example"));
 * assert.deepEqual(event, { event: "delta", data: { text: "Hi" } });
 * assert.equal(rest.length, 0);
 * ```
 */
export async function* serverSentEvents(
  body: ReadableStream<Uint8Array>,
  provider: string,
): AsyncGenerator<ServerSentEvent> {
  const { EventSourceParserStream } = await importPackage<typeof EventSourceParser>(
    "eventsource-parser",
    "stream",
  );
  const events = body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream({ onError: "terminate" }));
  for await (const { event, data } of events) {
    if (data === "[DONE]") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch (error) {
      throw malformed(provider, `an event's data is not JSON: ${quote(shorten(data, 80))}`, {
        cause: error,
      });
    }
    yield { event, data: parsed };
  }
}
