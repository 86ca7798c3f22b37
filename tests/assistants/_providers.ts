/**
 * Each provider's wire format, as its fake server speaks it, and the entries
 * of the contract suite: one per registered model assistant.
 * @module
 */
import type { ModelAssistant } from "../../components/assistants/_base.ts";
import { LocalDocument } from "../../components/core/document.ts";
import type { ChatParams } from "../../components/core/params.ts";
import type { Source } from "../../components/core/source.ts";
import type { FakeServer, FeedOptions, Recorded } from "./_fake_server.ts";

/** What a request asked the provider for, in svc's terms. */
export interface Asked {
  model: unknown;
  maxTokens: unknown;
  /** Every message's text, joined. */
  text: string;
  stream: unknown;
}

/** A provider's side of the contract suite. */
export interface ProviderFake {
  /** The configuration that points the assistant at the fake server. */
  env(url: string): Record<string, string>;
  /** The path the assistant must call. */
  path: string;
  /** A streamed answer of `texts`, in the provider's events. */
  answer(server: FakeServer, texts: readonly string[], options?: FeedOptions): Response;
  /** The provider's error response, with its real error body. */
  error(status: number, message: string, headers?: HeadersInit): Response;
  /** An answer that gives the text `ok`, then data that is not JSON. */
  badJson(server: FakeServer): Response;
  /** An answer that gives the text `ok`, then valid JSON of an unknown shape. */
  unexpected(server: FakeServer): Response;
  /** What a request asked for. */
  asked(request: Recorded): Asked;
}

/** A model assistant class with its statics, concrete. */
export type ModelAssistantClass =
  & Omit<typeof ModelAssistant, "prototype">
  & (new () => Pick<ModelAssistant, "answer" | "displayName">);

/**
 * A subclass of `assistant` configured by `vars` instead of the environment
 * (tests run in parallel and the environment is shared), with short retry
 * waits.
 */
export function configured<T extends ModelAssistantClass>(
  assistant: T,
  vars: Record<string, string>,
): T {
  const base: ModelAssistantClass = assistant;
  return class extends base {
    static override retryDelay = 10;
    static override env(name: string): string | undefined {
      return vars[name];
    }
  } as T;
}

/** Chat parameters for a direct call of `answer()`. */
export function chatParams(
  signal: AbortSignal = new AbortController().signal,
  params: Record<string, unknown> = {},
): ChatParams {
  return { user: "tester", chat_id: "chat-1", chat_name: "Test chat", signal, ...params };
}

const report = LocalDocument.fromPath("/nowhere/report.pdf");
const notes = LocalDocument.fromPath("/nowhere/notes.md");

/** Two sources: pages of a PDF, and a Markdown file without pages. */
export const SOURCES: Source[] = [
  { id: "s1", document: report, location: "1-3", content: "Revenue grew by 42 %.", numTokens: 7 },
  { id: "s2", document: notes, location: "", content: "Costs stayed flat.", numTokens: 4 },
];

/** One server-sent event of `data` (JSON unless a string), with its `event:` name if given. */
export function sse(data: unknown, event?: string): string {
  const named = event ? `event: ${event}\n` : "";
  return `${named}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

function chunk(delta: Record<string, unknown>, finishReason: string | null = null) {
  return {
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    created: 1_750_000_000,
    model: "test-model",
    system_fingerprint: "fp_test",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/** A Chat Completions stream: the role first, each text, the finish reason, the usage, `[DONE]`. */
export function chatCompletionEvents(texts: readonly string[], hold = false): string[] {
  const events = [
    sse(chunk({ role: "assistant", content: "", refusal: null })),
    ...texts.map((text) => sse(chunk({ content: text }))),
  ];
  if (hold) return events;
  return [
    ...events,
    sse(chunk({}, "stop")),
    sse({
      ...chunk({}),
      choices: [],
      usage: {
        prompt_tokens: 20,
        completion_tokens: texts.length,
        total_tokens: 20 + texts.length,
      },
    }),
    sse("[DONE]"),
  ];
}

/** The headers of a server-sent event stream. */
export const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8" };

/** OpenAI's error body for a status. */
export function openaiErrorBody(status: number, message: string): string {
  const [type, code] = status === 429
    ? ["requests", "rate_limit_exceeded"]
    : status >= 500
    ? ["server_error", null]
    : status === 401
    ? ["invalid_request_error", "invalid_api_key"]
    : ["invalid_request_error", null];
  return JSON.stringify({ error: { message, type, param: null, code } });
}

/**
 * A server that speaks OpenAI's Chat Completions API at `path`, reading the
 * token limit from `tokenField`.
 */
export function chatCompletionsFake(
  env: (url: string) => Record<string, string>,
  tokenField: string,
  path = "/v1/chat/completions",
): ProviderFake {
  return {
    env,
    path,
    answer: (server, texts, options = {}) =>
      server.feed(chatCompletionEvents(texts, options.hold), { headers: SSE_HEADERS, ...options }),
    error: (status, message, headers = {}) =>
      new Response(openaiErrorBody(status, message), {
        status,
        headers: { "content-type": "application/json", ...headers },
      }),
    badJson: (server) =>
      server.feed([...chatCompletionEvents(["ok"], true), "data: {not json\n\n"], {
        headers: SSE_HEADERS,
        hold: true,
      }),
    unexpected: (server) =>
      server.feed([...chatCompletionEvents(["ok"], true), sse({ object: "surprise" })], {
        headers: SSE_HEADERS,
        hold: true,
      }),
    asked: ({ body }) => {
      const request = body as Record<string, unknown>;
      const messages = request.messages as { content: string }[];
      return {
        model: request.model,
        maxTokens: request[tokenField],
        text: messages.map((message) => message.content).join("\n"),
        stream: request.stream,
      };
    },
  };
}

/** The fake OpenAI API. */
export const openaiFake: ProviderFake = chatCompletionsFake((url) => ({
  OPENAI_API_KEY: "sk-test",
  OPENAI_BASE_URL: `${url}/v1`,
  SVC_OPENAI_MODEL: "gpt-test",
}), "max_completion_tokens");

/** A fake server that speaks the OpenAI API, such as vLLM. */
export const openaiCompatibleFake: ProviderFake = chatCompletionsFake((url) => ({
  SVC_OPENAI_COMPATIBLE_URL: `${url}/v1`,
  SVC_OPENAI_COMPATIBLE_MODEL: "local-model",
}), "max_tokens");

const NDJSON_HEADERS = { "content-type": "application/x-ndjson" };

function ollamaLine(content: string, done = false): string {
  const line = {
    model: "llama-test",
    created_at: "2025-06-01T12:00:00.000000Z",
    message: { role: "assistant", content },
    done,
    ...(done
      ? {
        done_reason: "stop",
        total_duration: 1_000_000,
        load_duration: 100_000,
        prompt_eval_count: 20,
        prompt_eval_duration: 200_000,
        eval_count: 3,
        eval_duration: 300_000,
      }
      : {}),
  };
  return `${JSON.stringify(line)}\n`;
}

/** An Ollama `/api/chat` stream: a line per text, then the `done` line. */
export function ollamaLines(texts: readonly string[], hold = false): string[] {
  const lines = texts.map((text) => ollamaLine(text));
  return hold ? lines : [...lines, ollamaLine("", true)];
}

/** The fake Ollama server. */
export const ollamaFake: ProviderFake = {
  env: (url) => ({ OLLAMA_HOST: url, SVC_OLLAMA_MODEL: "llama-test" }),
  path: "/api/chat",
  answer: (server, texts, options = {}) =>
    server.feed(ollamaLines(texts, options.hold), { headers: NDJSON_HEADERS, ...options }),
  error: (status, message, headers = {}) =>
    new Response(JSON.stringify({ error: message }), {
      status,
      headers: { "content-type": "application/json; charset=utf-8", ...headers },
    }),
  badJson: (server) =>
    server.feed([...ollamaLines(["ok"], true), "{not json\n"], {
      headers: NDJSON_HEADERS,
      hold: true,
    }),
  unexpected: (server) =>
    server.feed([...ollamaLines(["ok"], true), '{"surprise":true}\n'], {
      headers: NDJSON_HEADERS,
      hold: true,
    }),
  asked: ({ body }) => {
    const request = body as {
      model: unknown;
      stream: unknown;
      messages: { content: string }[];
      options: { num_predict: unknown };
    };
    return {
      model: request.model,
      maxTokens: request.options.num_predict,
      text: request.messages.map((message) => message.content).join("\n"),
      stream: request.stream,
    };
  },
};

/** Every message's text of a request, joined: the system's, then each message's. */
function joined(...texts: unknown[]): string {
  return texts.filter((text) => typeof text === "string").join("\n");
}

/** A JSON error response of a provider. */
function jsonError(status: number, body: unknown, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** An Anthropic server-sent event: its type is both the event name and the data's `type`. */
function anthropicEvent(data: { type: string } & Record<string, unknown>): string {
  return sse(data, data.type);
}

/**
 * An Anthropic Messages stream, as the API documents it: `message_start`, a
 * text block opened with a `ping` after it, a `text_delta` per text, the
 * block's end, `message_delta` with the stop reason, `message_stop`.
 */
export function anthropicEvents(texts: readonly string[], hold = false): string[] {
  const events = [
    anthropicEvent({
      type: "message_start",
      message: {
        id: "msg_test",
        type: "message",
        role: "assistant",
        content: [],
        model: "claude-test",
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 25, output_tokens: 1 },
      },
    }),
    anthropicEvent({
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    }),
    anthropicEvent({ type: "ping" }),
    ...texts.map((text) =>
      anthropicEvent({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })
    ),
  ];
  if (hold) return events;
  return [
    ...events,
    anthropicEvent({ type: "content_block_stop", index: 0 }),
    anthropicEvent({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: texts.length },
    }),
    anthropicEvent({ type: "message_stop" }),
  ];
}

/** Anthropic's error body: `{"type":"error","error":{"type","message"}}`. */
export function anthropicErrorBody(status: number, message: string): unknown {
  const type = status === 401
    ? "authentication_error"
    : status === 429
    ? "rate_limit_error"
    : status === 529
    ? "overloaded_error"
    : status >= 500
    ? "api_error"
    : status === 404
    ? "not_found_error"
    : "invalid_request_error";
  return { type: "error", error: { type, message } };
}

/** The fake Anthropic API. */
export const anthropicFake: ProviderFake = {
  env: (url) => ({
    ANTHROPIC_API_KEY: "sk-ant-test",
    ANTHROPIC_BASE_URL: url,
    SVC_ANTHROPIC_MODEL: "claude-test",
  }),
  path: "/v1/messages",
  answer: (server, texts, options = {}) =>
    server.feed(anthropicEvents(texts, options.hold), { headers: SSE_HEADERS, ...options }),
  error: (status, message, headers) =>
    jsonError(status, anthropicErrorBody(status, message), headers),
  badJson: (server) =>
    server.feed([
      ...anthropicEvents(["ok"], true),
      "event: content_block_delta\ndata: {not json\n\n",
    ], {
      headers: SSE_HEADERS,
      hold: true,
    }),
  unexpected: (server) =>
    server.feed(
      [...anthropicEvents(["ok"], true), sse({ surprise: true }, "content_block_delta")],
      {
        headers: SSE_HEADERS,
        hold: true,
      },
    ),
  asked: ({ body }) => {
    const request = body as Record<string, unknown>;
    const messages = request.messages as { content: string }[];
    return {
      model: request.model,
      maxTokens: request.max_tokens,
      text: joined(request.system, ...messages.map((message) => message.content)),
      stream: request.stream,
    };
  },
};

/**
 * A Gemini `streamGenerateContent?alt=sse` stream: a GenerateContentResponse
 * per text, the last with `finishReason` and the full usage, each event ended
 * by CRLF CRLF as Google's servers send them.
 */
export function geminiEvents(
  texts: readonly string[],
  options: { hold?: boolean; finishReason?: string } = {},
): string[] {
  const { hold = false, finishReason = "STOP" } = options;
  const response = (text: string | undefined, finish?: string) => ({
    candidates: [{
      ...(text === undefined ? {} : { content: { parts: [{ text }], role: "model" } }),
      ...(finish ? { finishReason: finish } : {}),
      index: 0,
    }],
    usageMetadata: {
      promptTokenCount: 20,
      ...(finish ? { candidatesTokenCount: texts.length } : {}),
      totalTokenCount: 20 + texts.length,
    },
    modelVersion: "gemini-test",
    responseId: "resp-test",
  });
  const events = texts.map((text, index) =>
    response(text, !hold && index === texts.length - 1 ? finishReason : undefined)
  );
  if (!hold && texts.length === 0) events.push(response(undefined, finishReason));
  return events.map((event) => `data: ${JSON.stringify(event)}\r\n\r\n`);
}

/** Google's error body: `{"error":{"code","message","status"}}`. */
export function geminiErrorBody(status: number, message: string): unknown {
  const reason = status === 400
    ? "INVALID_ARGUMENT"
    : status === 403
    ? "PERMISSION_DENIED"
    : status === 404
    ? "NOT_FOUND"
    : status === 429
    ? "RESOURCE_EXHAUSTED"
    : status === 503
    ? "UNAVAILABLE"
    : "INTERNAL";
  return { error: { code: status, message, status: reason } };
}

/** The fake Gemini API. */
export const geminiFake: ProviderFake = {
  env: (url) => ({
    GOOGLE_API_KEY: "AIza-test",
    GOOGLE_GEMINI_BASE_URL: url,
    SVC_GEMINI_MODEL: "gemini-test",
  }),
  path: "/v1beta/models/gemini-test:streamGenerateContent",
  answer: (server, texts, options = {}) =>
    server.feed(geminiEvents(texts, { hold: options.hold }), {
      headers: SSE_HEADERS,
      ...options,
    }),
  error: (status, message, headers) => jsonError(status, geminiErrorBody(status, message), headers),
  badJson: (server) =>
    server.feed([...geminiEvents(["ok"], { hold: true }), "data: {not json\r\n\r\n"], {
      headers: SSE_HEADERS,
      hold: true,
    }),
  unexpected: (server) =>
    server.feed([...geminiEvents(["ok"], { hold: true }), sse({ surprise: true })], {
      headers: SSE_HEADERS,
      hold: true,
    }),
  asked: ({ path, body }) => {
    const request = body as {
      systemInstruction?: { parts: { text: string }[] };
      contents: { parts: { text: string }[] }[];
      generationConfig: { maxOutputTokens: unknown };
    };
    const texts = [request.systemInstruction, ...request.contents]
      .flatMap((content) => content?.parts ?? [])
      .map((part) => part.text);
    return {
      model: /^\/v1beta\/models\/(.+):streamGenerateContent$/.exec(path)?.[1],
      maxTokens: request.generationConfig.maxOutputTokens,
      text: joined(...texts),
      // The stream is asked for by the method and `alt=sse`, not by the body.
      stream: path.endsWith(":streamGenerateContent"),
    };
  },
};

/** A Cohere server-sent event: its type is both the event name and the data's `type`. */
function cohereEvent(data: { type: string } & Record<string, unknown>): string {
  return sse(data, data.type);
}

/**
 * A Cohere Chat API v2 stream: `message-start`, `content-start`, a
 * `content-delta` per text, `content-end`, a citation, `message-end` with its
 * finish reason and usage, then `[DONE]`.
 */
export function cohereEvents(
  texts: readonly string[],
  options: { hold?: boolean; end?: Record<string, unknown> } = {},
): string[] {
  const events = [
    cohereEvent({
      id: "cohere-test",
      type: "message-start",
      delta: {
        message: { role: "assistant", content: [], tool_plan: "", tool_calls: [], citations: [] },
      },
    }),
    cohereEvent({
      type: "content-start",
      index: 0,
      delta: { message: { content: { type: "text", text: "" } } },
    }),
    ...texts.map((text) =>
      cohereEvent({ type: "content-delta", index: 0, delta: { message: { content: { text } } } })
    ),
  ];
  if (options.hold) return events;
  return [
    ...events,
    cohereEvent({ type: "content-end", index: 0 }),
    cohereEvent({
      type: "citation-start",
      index: 0,
      delta: {
        message: {
          citations: { start: 0, end: 4, text: texts[0] ?? "", sources: [], type: "TEXT_CONTENT" },
        },
      },
    }),
    cohereEvent({ type: "citation-end", index: 0 }),
    cohereEvent({
      type: "message-end",
      delta: options.end ?? {
        finish_reason: "COMPLETE",
        usage: {
          billed_units: { input_tokens: 20, output_tokens: texts.length },
          tokens: { input_tokens: 120, output_tokens: texts.length },
        },
      },
    }),
    sse("[DONE]"),
  ];
}

/** The fake Cohere API, whose error body is `{"message"}`. */
export const cohereFake: ProviderFake = {
  env: (url) => ({
    COHERE_API_KEY: "co-test",
    CO_API_URL: url,
    SVC_COHERE_MODEL: "command-test",
  }),
  path: "/v2/chat",
  answer: (server, texts, options = {}) =>
    server.feed(cohereEvents(texts, { hold: options.hold }), { headers: SSE_HEADERS, ...options }),
  error: (status, message, headers) => jsonError(status, { message }, headers),
  badJson: (server) =>
    server.feed(
      [...cohereEvents(["ok"], { hold: true }), "event: content-delta\ndata: {oops\n\n"],
      {
        headers: SSE_HEADERS,
        hold: true,
      },
    ),
  unexpected: (server) =>
    server.feed(
      [...cohereEvents(["ok"], { hold: true }), sse({ surprise: true }, "content-delta")],
      {
        headers: SSE_HEADERS,
        hold: true,
      },
    ),
  asked: ({ body }) => {
    const request = body as Record<string, unknown>;
    const messages = request.messages as { content: string }[];
    return {
      model: request.model,
      maxTokens: request.max_tokens,
      text: joined(...messages.map((message) => message.content)),
      stream: request.stream,
    };
  },
};

function ai21Chunk(delta: Record<string, unknown>, finishReason: string | null = null) {
  return {
    id: "chat-test",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(finishReason
      ? { usage: { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 } }
      : {}),
  };
}

/** An AI21 chat completions stream: the role, each text, the finish with the usage, `[DONE]`. */
export function ai21Events(texts: readonly string[], hold = false): string[] {
  const events = [
    sse(ai21Chunk({ role: "assistant" })),
    ...texts.map((text) => sse(ai21Chunk({ content: text }))),
  ];
  return hold ? events : [...events, sse(ai21Chunk({ content: "" }, "stop")), sse("[DONE]")];
}

/** The fake AI21 Studio API, whose error body is `{"detail"}`. */
export const ai21Fake: ProviderFake = {
  env: (url) => ({ AI21_API_KEY: "ai21-test", AI21_BASE_URL: url, SVC_AI21_MODEL: "jamba-test" }),
  path: "/studio/v1/chat/completions",
  answer: (server, texts, options = {}) =>
    server.feed(ai21Events(texts, options.hold), { headers: SSE_HEADERS, ...options }),
  error: (status, message, headers) => jsonError(status, { detail: message }, headers),
  badJson: (server) =>
    server.feed([...ai21Events(["ok"], true), "data: {not json\n\n"], {
      headers: SSE_HEADERS,
      hold: true,
    }),
  unexpected: (server) =>
    server.feed([...ai21Events(["ok"], true), sse({ object: "surprise" })], {
      headers: SSE_HEADERS,
      hold: true,
    }),
  asked: openaiCompatibleFake.asked,
};

/**
 * The fake server of each model assistant, by its export name in
 * `components/assistants/mod.ts`. A new provider adds its entry here; the
 * contract suite fails for a model assistant without one.
 */
export const FAKES: Readonly<Record<string, ProviderFake>> = {
  OpenAI: openaiFake,
  OpenAICompatible: openaiCompatibleFake,
  Ollama: ollamaFake,
  Anthropic: anthropicFake,
  Gemini: geminiFake,
  Cohere: cohereFake,
  AI21: ai21Fake,
};
