/**
 * AI21's Jamba models through AI21 Studio's chat completions, streamed.
 *
 * Plain `fetch` through `_http.ts`. Not AI21's own SDK (`ai21`), which is not
 * kept as well as the SDKs svc uses for other providers; nor the `openai`
 * SDK, which could speak this OpenAI-style API but drops AI21's error body
 * (`{"detail"}`), so it would need the same wrapping as `openai.ts`. The stream is OpenAI-style
 * server-sent events ending with `[DONE]`, which `serverSentEvents` reads.
 * @module
 */
import { trimSlashes } from "../core/text_scan.ts";
import type { Requirement } from "../core/requirements.ts";
import { ModelAssistant, type ModelRequest } from "./_base.ts";
import { chatCompletionDelta } from "./_chat_completions.ts";
import { excerpt, malformed, providerMessage, streamError } from "./_errors.ts";
import { postJson, serverSentEvents } from "./_http.ts";
import { chatMessages } from "./_prompt.ts";

const KEY = "AI21_API_KEY";
const BASE_URL = "AI21_BASE_URL";

/**
 * AI21's Jamba models through AI21 Studio's chat completions, streamed. Needs
 * `AI21_API_KEY`; `AI21_BASE_URL` points it at another server, given as a
 * host (default `https://api.ai21.com`) or as the API's root
 * (`https://api.ai21.com/studio/v1`); `SVC_AI21_MODEL` names the model
 * (default `jamba-large`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AI21 } from "@svc/svc/assistants";
 * assert.match(AI21.displayName, /^AI21\//);
 * assert.deepEqual(AI21.requirements.map((r) => r.name), ["AI21_API_KEY"]);
 * ```
 */
export class AI21 extends ModelAssistant {
  static override provider = "AI21";
  static override modelEnv = "SVC_AI21_MODEL";
  static override defaultModel = "jamba-large";

  static override get requirements(): readonly Requirement[] {
    return [this.envRequirement(KEY)];
  }

  protected override async *stream(request: ModelRequest): AsyncGenerator<string> {
    const { config } = this;
    const { provider } = config;
    const response = await postJson(chatCompletionsUrl(this.setting(BASE_URL)), {
      model: request.model,
      messages: chatMessages(request.prompt),
      max_tokens: request.maxNewTokens,
      temperature: 0,
      stream: true,
    }, {
      provider,
      signal: request.signal,
      headers: { authorization: `Bearer ${this.required(KEY)}` },
    });
    for await (const { data } of serverSentEvents(response.body, provider)) {
      if (typeof data !== "object" || data === null || Array.isArray(data)) {
        throw malformed(provider, `a chunk is not an object: ${excerpt(data)}`);
      }
      const chunk = data as Record<string, unknown>;
      if (chunk.error !== undefined || chunk.detail !== undefined) {
        throw streamError(provider, providerMessage(chunk) || excerpt(chunk));
      }
      const { text, done } = chatCompletionDelta(chunk, provider);
      yield text;
      if (done) return;
    }
    throw malformed(provider, "the stream ended before the answer was finished");
  }
}

/**
 * The chat completions endpoint of `AI21_BASE_URL`: a URL with a path is the
 * API's root (`https://api.ai21.com/studio/v1`), one without is the host.
 */
function chatCompletionsUrl(base = "https://api.ai21.com"): string {
  const trimmed = trimSlashes(base);
  try {
    if (new URL(trimmed).pathname !== "/") return `${trimmed}/chat/completions`;
  } catch {
    // not a URL: fetch says so, naming it
  }
  return `${trimmed}/studio/v1/chat/completions`;
}
