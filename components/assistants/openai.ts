/**
 * The OpenAI assistants: OpenAI's models through the official SDK, and any
 * OpenAI-compatible server.
 * @module
 */
import type * as OpenAISdk from "npm:openai@7.57.0";
import { quote, SvcError } from "../core/errors.ts";
import { importPackage } from "../packages.ts";
import { ModelRequirement, type Requirement, ServerRequirement } from "../core/requirements.ts";
import { openAiModels, serves } from "../served_models.ts";
import { redactUrl } from "../core/redact_url.ts";
import { ModelAssistant, type ModelRequest } from "./_base.ts";
import { chatCompletionDelta } from "./_chat_completions.ts";
import {
  malformed,
  providerError,
  providerMessage,
  retryAfter,
  streamError,
  timeoutError,
  unreachable,
} from "./_errors.ts";
import { chatMessages } from "./_prompt.ts";

/**
 * OpenAI's models through the Chat Completions API, streamed. Needs
 * `OPENAI_API_KEY`; `OPENAI_BASE_URL` points it at another server that speaks
 * the API; `SVC_OPENAI_MODEL` names the model (default `gpt-4.1-mini`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OpenAI } from "@svc/svc/assistants";
 * assert.match(OpenAI.displayName, /^OpenAI\//);
 * ```
 */
export class OpenAI extends ModelAssistant {
  static override provider = "OpenAI";
  static override modelEnv = "SVC_OPENAI_MODEL";
  static override defaultModel = "gpt-4.1-mini";

  static override get requirements(): readonly Requirement[] {
    return [this.envRequirement("OPENAI_API_KEY")];
  }

  protected override prepare(): Promise<typeof OpenAISdk> {
    return openaiSdk();
  }

  protected override stream(request: ModelRequest): AsyncIterable<string> {
    const { config } = this;
    return chatCompletions(request, {
      provider: config.provider,
      baseURL: this.setting("OPENAI_BASE_URL") ?? "https://api.openai.com/v1",
      apiKey: this.required("OPENAI_API_KEY"),
      organization: config.env("OPENAI_ORG_ID"),
      project: config.env("OPENAI_PROJECT_ID"),
      // OpenAI replaced `max_tokens` by this field, and its reasoning models refuse the old one.
      tokenLimit: "max_completion_tokens",
      timeout: config.timeout(),
    });
  }
}

const COMPATIBLE_URL = "SVC_OPENAI_COMPATIBLE_URL";
const COMPATIBLE_MODEL = "SVC_OPENAI_COMPATIBLE_MODEL";
const COMPATIBLE_KEY = "SVC_OPENAI_COMPATIBLE_API_KEY";

/**
 * Any server that speaks OpenAI's Chat Completions API: vLLM, the llama.cpp
 * server, LM Studio. `SVC_OPENAI_COMPATIBLE_URL` is its base URL (such as
 * `http://127.0.0.1:8000/v1`), `SVC_OPENAI_COMPATIBLE_MODEL` the model, and
 * `SVC_OPENAI_COMPATIBLE_API_KEY` its key, when it wants one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OpenAICompatible } from "@svc/svc/assistants";
 * assert.match(OpenAICompatible.displayName, /^OpenAICompatible/);
 * ```
 */
export class OpenAICompatible extends ModelAssistant {
  static override provider = "OpenAICompatible";
  static override modelEnv = COMPATIBLE_MODEL;

  static override get requirements(): readonly Requirement[] {
    const url = this.env(COMPATIBLE_URL);
    const server = url ? quote(redactUrl(url)) : `$${COMPATIBLE_URL}`;
    const model = this.modelName();
    return [
      this.envRequirement(COMPATIBLE_URL),
      ...(this.model ? [] : [this.envRequirement(COMPATIBLE_MODEL)]),
      new ServerRequirement(`OpenAI-compatible server at ${server}`, () => url ?? ""),
      ...(url && model
        ? [
          new ModelRequirement(`${quote(model)} on the server at ${server}`, async () => {
            const models = await openAiModels(url, this.env(COMPATIBLE_KEY));
            return models && serves(models, model);
          }),
        ]
        : []),
    ];
  }

  protected override prepare(): Promise<typeof OpenAISdk> {
    return openaiSdk();
  }

  protected override stream(request: ModelRequest): AsyncIterable<string> {
    const { config } = this;
    if (!request.model) this.required(COMPATIBLE_MODEL);
    return chatCompletions(request, {
      provider: config.provider,
      baseURL: this.required(COMPATIBLE_URL),
      apiKey: this.setting(COMPATIBLE_KEY),
      // Every server that speaks the API knows the old field; not all know the new one.
      tokenLimit: "max_tokens",
      timeout: config.timeout(),
    });
  }
}

/** The OpenAI SDK, loaded at the first call rather than at start. */
function openaiSdk(): Promise<typeof OpenAISdk> {
  return importPackage<typeof OpenAISdk>("openai");
}

interface ChatCompletionsOptions {
  provider: string;
  baseURL: string;
  /** Without one, no `Authorization` header is sent. */
  apiKey?: string;
  organization?: string;
  project?: string;
  tokenLimit: "max_completion_tokens" | "max_tokens";
  /** svc's own time limit, in milliseconds. */
  timeout: number;
}

/** One streamed Chat Completions call: the texts of its deltas, until a finish reason. */
async function* chatCompletions(
  request: ModelRequest,
  options: ChatCompletionsOptions,
): AsyncGenerator<string> {
  const { provider, baseURL } = options;
  const { signal } = request;
  // The SDK keeps only the `error` member of an error body; servers that speak
  // the API do not all put their message there, so the body is kept here.
  let errorBody: string | undefined;
  const sdk = await openaiSdk();
  const client = new sdk.OpenAI({
    apiKey: options.apiKey ?? "unused",
    baseURL,
    organization: options.organization ?? null,
    project: options.project ?? null,
    defaultHeaders: options.apiKey ? {} : { Authorization: null },
    // svc retries and times out by itself (see _stream.ts); the SDK's own
    // time limit only backs it up.
    maxRetries: 0,
    timeout: options.timeout + 1000,
    // svc reports what goes wrong; the SDK would also log it to the console.
    logLevel: "off",
    fetch: async (url: string | URL | Request, init?: RequestInit) => {
      const response = await fetch(url, init);
      if (!response.ok) errorBody = await response.clone().text().catch(() => undefined);
      return response;
    },
  });
  try {
    const stream = await client.chat.completions.create({
      model: request.model,
      messages: chatMessages(request.prompt),
      [options.tokenLimit]: request.maxNewTokens,
      temperature: 0,
      stream: true,
    }, { signal });
    for await (const chunk of stream) {
      const { text, done } = chatCompletionDelta(chunk, provider);
      yield text;
      if (done) return;
    }
    if (!signal.aborted) {
      throw malformed(provider, "the stream ended before the answer was finished");
    }
  } catch (error) {
    throw fromSdk(sdk, error, options, errorBody);
  }
}

/** The SvcError for what the SDK threw; an abort is passed on as it is. */
function fromSdk(
  sdk: typeof OpenAISdk,
  error: unknown,
  options: ChatCompletionsOptions,
  errorBody: string | undefined,
): unknown {
  const { provider } = options;
  if (error instanceof SvcError || error instanceof sdk.APIUserAbortError) return error;
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return timeoutError(provider, options.timeout);
  }
  if (error instanceof sdk.APIConnectionError) {
    return unreachable(provider, options.baseURL, { cause: error.cause ?? error });
  }
  // Not the SDK's error as the cause: its message holds the body as the
  // provider sent it, which a log line would show whole.
  if (error instanceof sdk.APIError) {
    if (error.status === undefined) {
      return streamError(provider, providerMessage(error.error) || error.message);
    }
    return providerError(provider, {
      httpStatus: error.status,
      message: providerMessage(errorBody ?? error.error),
      retryAfter: retryAfter(error.headers),
    });
  }
  // The SDK's words for an event whose data is not JSON.
  if (error instanceof SyntaxError) {
    return malformed(provider, "an event's data is not JSON", { cause: error });
  }
  return error;
}
