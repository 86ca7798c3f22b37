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

/**
 * The fake server of each model assistant, by its export name in
 * `components/assistants/mod.ts`. A new provider adds its entry here; the
 * contract suite fails for a model assistant without one.
 */
export const FAKES: Readonly<Record<string, ProviderFake>> = {
  OpenAI: openaiFake,
  OpenAICompatible: openaiCompatibleFake,
  Ollama: ollamaFake,
};
