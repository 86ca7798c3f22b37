/**
 * Each provider's wire format, as its fake server speaks it, and the entries
 * of the contract suite: one per registered model assistant.
 * @module
 */
import assert from "node:assert/strict";
import type { ModelAssistant } from "../../components/assistants/_base.ts";
import { LocalDocument } from "../../components/core/document.ts";
import { SvcError } from "../../components/core/errors.ts";
import type { ChatParams } from "../../components/core/params.ts";
import type { Source } from "../../components/core/source.ts";
import { FakeServer, type FeedOptions, type Recorded } from "./_fake_server.ts";

/** What a request asked the provider for, in svc's terms. */
export interface Asked {
  model: unknown;
  maxTokens: unknown;
  temperature: unknown;
  /** The instruction's text. */
  system: unknown;
  /** The text of the sources and the question. */
  user: unknown;
  stream: unknown;
}

/** An error message as a provider words it, with the status it sends it with. */
export interface ErrorSample {
  status: number;
  message: string;
  /** The whole error body, when it is not of the provider's usual shape. */
  body?: unknown;
}

/** A variable an assistant cannot answer without, and what it says when it is unset. */
export interface Need {
  name: string;
  message: string;
}

/** How a provider speaks and how its assistant is configured: what each fake declares. */
export interface ProviderWire {
  /** The configuration that points the assistant at the fake server. */
  env(url: string): Record<string, string>;
  /** The path the assistant must call. */
  path: string;
  /** The headers of a streamed answer. */
  headers: Record<string, string>;
  /** The events of an answer of `texts`, without those that end it when `unfinished`. */
  events(texts: readonly string[], unfinished: boolean): string[];
  /** An event whose data is not JSON. */
  notJson: string;
  /** An event of valid JSON of an unknown shape. */
  unknownShape: string;
  /** An event that reports `message` as an error inside the stream. */
  errorEvent(message: string): string;
  /** What svc says of a stream that ends before the events that end the answer. */
  unfinished: string;
  /** The provider's error body for a status. */
  errorBody(status: number, message: string): unknown;
  /** Error messages as the provider words them. */
  errorSamples: readonly ErrorSample[];
  /** What a request asked for. */
  asked(request: Recorded): Asked;
  /** The variable that names the model. */
  modelEnv: string;
  /** The model when that variable is unset; `""` when there is none. */
  defaultModel: string;
  /** The requirements the assistant lists, as `<kind> <name>`, configured by `env(url)`. */
  requirements(url: string): string[];
  /** The variables of `env()` the assistant cannot answer without. */
  needs: readonly Need[];
}

/** Options of {@linkcode ProviderFake.answer}. */
export interface AnswerOptions extends FeedOptions {
  /**
   * Leave out the events that end the answer.
   * @default {hold}
   */
  unfinished?: boolean;
}

/** A provider's side of the contract suite. */
export interface ProviderFake extends ProviderWire {
  /** A streamed answer of `texts`, in the provider's events. */
  answer(server: FakeServer, texts: readonly string[], options?: AnswerOptions): Response;
  /** The provider's error response, with its real error body. */
  error(status: number, message: string, headers?: HeadersInit): Response;
}

/** The fake of a provider that speaks `wire`. */
export function providerFake(wire: ProviderWire): ProviderFake {
  return {
    ...wire,
    answer: (server, texts, options = {}) => {
      const { unfinished = options.hold ?? false, ...feed } = options;
      return server.feed(wire.events(texts, unfinished), { headers: wire.headers, ...feed });
    },
    error: (status, message, headers = {}) =>
      new Response(JSON.stringify(wire.errorBody(status, message)), {
        status,
        headers: { "content-type": "application/json", ...headers },
      }),
  };
}

/** How many pieces of an answer of `texts` it takes to carry the first text. */
export function firstTextPieces(fake: ProviderWire, texts: readonly string[]): number {
  return fake.events(texts, false).findIndex((piece) => piece.includes(texts[0]!)) + 1;
}

/** An answer that gives the text `ok`, then `event`, and stays open. */
export function okThen(server: FakeServer, fake: ProviderFake, event: string): Response {
  return server.feed([...fake.events(["ok"], true), event], { headers: fake.headers, hold: true });
}

/** A model assistant class with its statics, concrete. */
export type ModelAssistantClass =
  & Omit<typeof ModelAssistant, "prototype">
  & (new () => Pick<ModelAssistant, "answer" | "displayName" | "standaloneQuestion">);

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

/** The password and the key that {@linkcode withSecrets} puts into URLs. */
export const SECRETS = { password: "hunter2-password", key: "sk-query-secret" } as const;

/**
 * `vars` with each value that holds `url` given a user name and password
 * (`http://ada:hunter2-password@...`) and a key in its query and fragment, as
 * an operator may configure them: none of these may show in a message or log.
 */
export function withSecrets(vars: Record<string, string>, url: string): Record<string, string> {
  const { password, key } = SECRETS;
  return Object.fromEntries(
    Object.entries(vars).map(([name, value]) => [
      name,
      value.includes(url)
        ? `${value.replace("://", `://ada:${password}@`)}?key=${key}#${key}`
        : value,
    ]),
  );
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

/** Answers "What grew?" from {@linkcode SOURCES} through `assistant`; collects the texts and the error. */
export async function collect(
  assistant: ModelAssistantClass,
  params: ChatParams = chatParams(),
): Promise<{ texts: string[]; error?: SvcError }> {
  const texts: string[] = [];
  try {
    for await (const text of new assistant().answer("What grew?", SOURCES, params)) {
      texts.push(text);
    }
    return { texts };
  } catch (error) {
    assert.ok(error instanceof SvcError, `an SvcError, not ${error}`);
    return { texts, error };
  }
}

/**
 * The request `assistant` sends, configured for `fake` and then by `vars` of
 * the fake server's URL, when asked with `max_new_tokens` 64; it checks that
 * the fake's answer comes through.
 */
export async function requestOf(
  assistant: ModelAssistantClass,
  fake: ProviderFake,
  vars: (url: string) => Record<string, string> = () => ({}),
): Promise<Recorded> {
  const texts = ["Revenue", " grew [1]."];
  await using server = new FakeServer([(s) => fake.answer(s, texts)]);
  const asking = configured(assistant, { ...fake.env(server.url), ...vars(server.url) });
  assert.deepEqual(
    await collect(asking, chatParams(undefined, { max_new_tokens: 64 })),
    { texts },
  );
  return server.last;
}

/** The headers of a server-sent event stream. */
export const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8" };

/** A server that streams `events`, then closes. */
export function streaming(events: string[], headers: HeadersInit = SSE_HEADERS): FakeServer {
  return new FakeServer([(s) => s.feed(events, { headers })]);
}

/** One server-sent event of `data` (JSON unless a string), with its `event:` name if given. */
export function sse(data: unknown, event?: string): string {
  const named = event ? `event: ${event}\n` : "";
  return `${named}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

/** A server-sent event whose type is both the event name and the data's `type`. */
function typed(data: { type: string } & Record<string, unknown>): string {
  return sse(data, data.type);
}

/** `<provider> needs the environment variable "<name>", which is unset`. */
function needsVar(provider: string, name: string): Need {
  return { name, message: `${provider} needs the environment variable "${name}", which is unset` };
}

/** What a request of `{role, content}` messages asked for; `system` may be a field of its own. */
function askedByMessages({ body }: Recorded, tokenField = "max_tokens"): Asked {
  const request = body as Record<string, unknown>;
  const messages = request.messages as { role: string; content: unknown }[];
  const content = (role: string) => messages.find((message) => message.role === role)?.content;
  return {
    model: request.model,
    maxTokens: request[tokenField],
    temperature: request.temperature,
    system: request.system ?? content("system"),
    user: content("user"),
    stream: request.stream,
  };
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
export function chatCompletionEvents(texts: readonly string[], unfinished = false): string[] {
  const events = [
    sse(chunk({ role: "assistant", content: "", refusal: null })),
    ...texts.map((text) => sse(chunk({ content: text }))),
  ];
  if (unfinished) return events;
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

/** OpenAI's error body for a status. */
export function openaiErrorBody(status: number, message: string): unknown {
  const [type, code] = status === 429
    ? ["requests", "rate_limit_exceeded"]
    : status >= 500
    ? ["server_error", null]
    : status === 401
    ? ["invalid_request_error", "invalid_api_key"]
    : ["invalid_request_error", null];
  return { error: { message, type, param: null, code } };
}

/** The end of an answer, for stream events that end with a finish reason. */
const UNFINISHED = "the stream ended before the answer was finished";

/** The parts of a fake that speaks OpenAI's Chat Completions API over server-sent events. */
const chatCompletions = {
  headers: SSE_HEADERS,
  notJson: "data: {not json\n\n",
  unknownShape: sse({ object: "surprise" }),
  errorEvent: (message: string) => sse({ error: { message, type: "server_error" } }),
  unfinished: UNFINISHED,
} as const;

/** The fake OpenAI API. */
export const openaiFake: ProviderFake = providerFake({
  ...chatCompletions,
  env: (url) => ({
    OPENAI_API_KEY: "sk-test",
    OPENAI_BASE_URL: `${url}/v1`,
    SVC_OPENAI_MODEL: "gpt-test",
  }),
  path: "/v1/chat/completions",
  events: chatCompletionEvents,
  errorBody: openaiErrorBody,
  // OpenAI masks the key it quotes.
  errorSamples: [{
    status: 401,
    message: "Incorrect API key provided: sk-te**st. You can find your API key at " +
      "https://platform.openai.com/account/api-keys.",
  }],
  asked: (request) => askedByMessages(request, "max_completion_tokens"),
  modelEnv: "SVC_OPENAI_MODEL",
  defaultModel: "gpt-4.1-mini",
  requirements: () => ["env OPENAI_API_KEY"],
  needs: [needsVar("OpenAI", "OPENAI_API_KEY")],
});

/** A fake server that speaks the OpenAI API, such as vLLM. */
export const openaiCompatibleFake: ProviderFake = providerFake({
  ...openaiFake,
  env: (url) => ({
    SVC_OPENAI_COMPATIBLE_URL: `${url}/v1`,
    SVC_OPENAI_COMPATIBLE_MODEL: "local-model",
  }),
  errorSamples: [
    {
      status: 400,
      message: "This model's maximum context length is 4096 tokens",
      // vLLM's error body.
      body: {
        object: "error",
        message: "This model's maximum context length is 4096 tokens",
        type: "BadRequestError",
        param: null,
        code: 400,
      },
    },
    { status: 404, message: "Model not loaded", body: { error: "Model not loaded" } },
  ],
  asked: (request) => askedByMessages(request, "max_tokens"),
  modelEnv: "SVC_OPENAI_COMPATIBLE_MODEL",
  defaultModel: "",
  requirements: (url) => [
    "env SVC_OPENAI_COMPATIBLE_URL",
    "env SVC_OPENAI_COMPATIBLE_MODEL",
    `server OpenAI-compatible server at "${url}/v1"`,
    `model "local-model" on the server at "${url}/v1"`,
  ],
  needs: [
    needsVar("OpenAICompatible", "SVC_OPENAI_COMPATIBLE_URL"),
    needsVar("OpenAICompatible", "SVC_OPENAI_COMPATIBLE_MODEL"),
  ],
});

/** The headers of an Ollama stream. */
export const NDJSON_HEADERS = { "content-type": "application/x-ndjson" };

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
export function ollamaLines(texts: readonly string[], unfinished = false): string[] {
  const lines = texts.map((text) => ollamaLine(text));
  return unfinished ? lines : [...lines, ollamaLine("", true)];
}

/** The fake Ollama server. */
export const ollamaFake: ProviderFake = providerFake({
  env: (url) => ({ OLLAMA_HOST: url, SVC_OLLAMA_MODEL: "llama-test" }),
  path: "/api/chat",
  headers: NDJSON_HEADERS,
  events: ollamaLines,
  notJson: "{not json\n",
  unknownShape: '{"surprise":true}\n',
  errorEvent: (message) => `${JSON.stringify({ error: message })}\n`,
  unfinished: 'the stream ended before its last line ("done": true)',
  errorBody: (_status, message) => ({ error: message }),
  errorSamples: [{ status: 404, message: "model 'llama-test' not found" }],
  asked: (request) => {
    const { options } = request.body as { options: Record<string, unknown> };
    return {
      ...askedByMessages(request),
      maxTokens: options.num_predict,
      temperature: options.temperature,
    };
  },
  modelEnv: "SVC_OLLAMA_MODEL",
  defaultModel: "llama3.2",
  requirements: (url) => [
    `server Ollama at "${url}"`,
    `model "llama-test" on Ollama at "${url}"`,
  ],
  needs: [],
});

/**
 * An Anthropic Messages stream, as the API documents it: `message_start`, a
 * text block opened with a `ping` after it, a `text_delta` per text, the
 * block's end, `message_delta` with the stop reason, `message_stop`.
 */
export function anthropicEvents(
  texts: readonly string[],
  options: { unfinished?: boolean; stopReason?: string } = {},
): string[] {
  const events = [
    typed({
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
    typed({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    typed({ type: "ping" }),
    ...texts.map((text) =>
      typed({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })
    ),
  ];
  if (options.unfinished) return events;
  return [
    ...events,
    typed({ type: "content_block_stop", index: 0 }),
    typed({
      type: "message_delta",
      delta: { stop_reason: options.stopReason ?? "end_turn", stop_sequence: null },
      usage: { output_tokens: texts.length },
    }),
    typed({ type: "message_stop" }),
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
export const anthropicFake: ProviderFake = providerFake({
  env: (url) => ({
    ANTHROPIC_API_KEY: "sk-ant-test",
    ANTHROPIC_BASE_URL: url,
    SVC_ANTHROPIC_MODEL: "claude-test",
  }),
  path: "/v1/messages",
  headers: SSE_HEADERS,
  events: (texts, unfinished) => anthropicEvents(texts, { unfinished }),
  notJson: "event: content_block_delta\ndata: {not json\n\n",
  unknownShape: sse({ surprise: true }, "content_block_delta"),
  errorEvent: (message) => sse(anthropicErrorBody(529, message), "error"),
  unfinished: UNFINISHED,
  errorBody: anthropicErrorBody,
  errorSamples: [{ status: 401, message: "invalid x-api-key" }],
  asked: askedByMessages,
  modelEnv: "SVC_ANTHROPIC_MODEL",
  defaultModel: "claude-sonnet-4-6",
  requirements: () => ["env ANTHROPIC_API_KEY"],
  needs: [needsVar("Anthropic", "ANTHROPIC_API_KEY")],
});

/**
 * A Gemini `streamGenerateContent?alt=sse` stream: a GenerateContentResponse
 * per text, the last with `finishReason` and the full usage, each event ended
 * by CRLF CRLF as Google's servers send them.
 */
export function geminiEvents(
  texts: readonly string[],
  options: { unfinished?: boolean; finishReason?: string } = {},
): string[] {
  const { unfinished = false, finishReason = "STOP" } = options;
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
    response(text, !unfinished && index === texts.length - 1 ? finishReason : undefined)
  );
  if (!unfinished && texts.length === 0) events.push(response(undefined, finishReason));
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
export const geminiFake: ProviderFake = providerFake({
  env: (url) => ({
    GOOGLE_API_KEY: "AIza-test",
    GOOGLE_GEMINI_BASE_URL: url,
    SVC_GEMINI_MODEL: "gemini-test",
  }),
  path: "/v1beta/models/gemini-test:streamGenerateContent",
  headers: SSE_HEADERS,
  events: (texts, unfinished) => geminiEvents(texts, { unfinished }),
  notJson: "data: {not json\r\n\r\n",
  unknownShape: sse({ surprise: true }),
  errorEvent: (message) => sse(geminiErrorBody(500, message)),
  unfinished: UNFINISHED,
  errorBody: geminiErrorBody,
  errorSamples: [{ status: 400, message: "API key not valid. Please pass a valid API key." }],
  asked: ({ path, body }) => {
    const request = body as {
      systemInstruction?: { parts: { text: string }[] };
      contents: { parts: { text: string }[] }[];
      generationConfig: { maxOutputTokens: unknown; temperature: unknown };
    };
    const text = (content?: { parts: { text: string }[] }) =>
      content?.parts.map((part) => part.text).join("");
    return {
      model: /^\/v1beta\/models\/(.+):streamGenerateContent$/.exec(path)?.[1],
      maxTokens: request.generationConfig.maxOutputTokens,
      temperature: request.generationConfig.temperature,
      system: text(request.systemInstruction),
      user: text(request.contents[0]),
      // The stream is asked for by the method and `alt=sse`, not by the body.
      stream: path.endsWith(":streamGenerateContent"),
    };
  },
  modelEnv: "SVC_GEMINI_MODEL",
  defaultModel: "gemini-2.5-flash",
  requirements: () => ["env GOOGLE_API_KEY or GEMINI_API_KEY"],
  needs: [{
    name: "GOOGLE_API_KEY",
    message:
      'Gemini needs the environment variable "GOOGLE_API_KEY" (or "GEMINI_API_KEY"), which is unset',
  }],
});

/** Cohere's `message-end` event, with its `delta`. */
export function cohereEnd(delta: Record<string, unknown>): string {
  return typed({ type: "message-end", delta });
}

/**
 * A Cohere Chat API v2 stream: `message-start`, `content-start`, a
 * `content-delta` per text, `content-end`, a citation, `message-end` with its
 * finish reason and usage, then `[DONE]`.
 */
export function cohereEvents(
  texts: readonly string[],
  options: { unfinished?: boolean; end?: Record<string, unknown> } = {},
): string[] {
  const events = [
    typed({
      id: "cohere-test",
      type: "message-start",
      delta: {
        message: { role: "assistant", content: [], tool_plan: "", tool_calls: [], citations: [] },
      },
    }),
    typed({
      type: "content-start",
      index: 0,
      delta: { message: { content: { type: "text", text: "" } } },
    }),
    ...texts.map((text) =>
      typed({ type: "content-delta", index: 0, delta: { message: { content: { text } } } })
    ),
  ];
  if (options.unfinished) return events;
  return [
    ...events,
    typed({ type: "content-end", index: 0 }),
    typed({
      type: "citation-start",
      index: 0,
      delta: {
        message: {
          citations: { start: 0, end: 4, text: texts[0] ?? "", sources: [], type: "TEXT_CONTENT" },
        },
      },
    }),
    typed({ type: "citation-end", index: 0 }),
    cohereEnd(
      options.end ?? {
        finish_reason: "COMPLETE",
        usage: {
          billed_units: { input_tokens: 20, output_tokens: texts.length },
          tokens: { input_tokens: 120, output_tokens: texts.length },
        },
      },
    ),
    sse("[DONE]"),
  ];
}

/** The fake Cohere API, whose error body is `{"message"}`; an error in the stream ends it. */
export const cohereFake: ProviderFake = providerFake({
  env: (url) => ({
    COHERE_API_KEY: "co-test",
    CO_API_URL: url,
    SVC_COHERE_MODEL: "command-test",
  }),
  path: "/v2/chat",
  headers: SSE_HEADERS,
  events: (texts, unfinished) => cohereEvents(texts, { unfinished }),
  notJson: "event: content-delta\ndata: {oops\n\n",
  unknownShape: sse({ surprise: true }, "content-delta"),
  errorEvent: (message) => cohereEnd({ finish_reason: "ERROR", error: message }),
  unfinished: UNFINISHED,
  errorBody: (_status, message) => ({ message }),
  errorSamples: [{ status: 401, message: "invalid api token" }],
  asked: askedByMessages,
  modelEnv: "SVC_COHERE_MODEL",
  defaultModel: "command-a-03-2025",
  requirements: () => ["env COHERE_API_KEY"],
  needs: [needsVar("Cohere", "COHERE_API_KEY")],
});

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
export function ai21Events(texts: readonly string[], unfinished = false): string[] {
  const events = [
    sse(ai21Chunk({ role: "assistant" })),
    ...texts.map((text) => sse(ai21Chunk({ content: text }))),
  ];
  return unfinished ? events : [...events, sse(ai21Chunk({ content: "" }, "stop")), sse("[DONE]")];
}

/** The fake AI21 Studio API, whose error body is `{"detail"}`. */
export const ai21Fake: ProviderFake = providerFake({
  ...chatCompletions,
  env: (url) => ({ AI21_API_KEY: "ai21-test", AI21_BASE_URL: url, SVC_AI21_MODEL: "jamba-test" }),
  path: "/studio/v1/chat/completions",
  events: ai21Events,
  errorBody: (_status, message) => ({ detail: message }),
  errorSamples: [{ status: 401, message: "Forbidden: Bad or missing API token." }],
  asked: askedByMessages,
  modelEnv: "SVC_AI21_MODEL",
  defaultModel: "jamba-large",
  requirements: () => ["env AI21_API_KEY"],
  needs: [needsVar("AI21", "AI21_API_KEY")],
});

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
