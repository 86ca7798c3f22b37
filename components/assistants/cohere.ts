/**
 * Cohere's Command models through the Chat API v2, streamed.
 *
 * Plain `fetch` through `_http.ts`, not `cohere-ai`: the SDK is generated
 * code with a fetcher, retries and time limits of its own, and error classes
 * per status to map back; it brings 17 MB (and optional AWS packages for
 * Bedrock) for one POST whose stream is ordinary server-sent events, which
 * `serverSentEvents` reads like every other provider's.
 *
 * The sources are not also sent as Cohere's `documents`: svc shows the
 * numbers the model writes ([1], [2]) and not Cohere's citation events, so
 * they would double the prompt's tokens for nothing.
 * @module
 */
import { trimSlashes } from "../core/text_scan.ts";
import { quote } from "../core/errors.ts";
import type { Requirement } from "../core/requirements.ts";
import { ModelAssistant, type ModelRequest } from "./_base.ts";
import { excerpt, malformed, streamError } from "./_errors.ts";
import { postJson, serverSentEvents } from "./_http.ts";
import { chatMessages } from "./_prompt.ts";

const KEY = "COHERE_API_KEY";
const BASE_URL = "CO_API_URL";

/**
 * Cohere's Command models through the Chat API v2, streamed. Needs
 * `COHERE_API_KEY`; `CO_API_URL` points it at another server (default
 * `https://api.cohere.com`); `SVC_COHERE_MODEL` names the model (default
 * `command-a-03-2025`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Cohere } from "@svc/svc/assistants";
 * assert.match(Cohere.displayName, /^Cohere\//);
 * assert.deepEqual(Cohere.requirements.map((r) => r.name), ["COHERE_API_KEY"]);
 * ```
 */
export class Cohere extends ModelAssistant {
  static override provider = "Cohere";
  static override modelEnv = "SVC_COHERE_MODEL";
  static override defaultModel = "command-a-03-2025";

  static override get requirements(): readonly Requirement[] {
    return [this.envRequirement(KEY)];
  }

  protected override async *stream(request: ModelRequest): AsyncGenerator<string> {
    const { config } = this;
    const { provider } = config;
    const base = trimSlashes(this.setting(BASE_URL) ?? "https://api.cohere.com");
    const response = await postJson(`${base}/v2/chat`, {
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
      const event = data as { type?: unknown; delta?: Record<string, unknown> | null };
      if (typeof data !== "object" || data === null || typeof event.type !== "string") {
        throw malformed(provider, `an event has no "type": ${excerpt(data)}`);
      }
      switch (event.type) {
        case "content-delta": {
          const content = (event.delta?.message as { content?: unknown } | undefined)?.content;
          const { text, thinking } = (content ?? {}) as { text?: unknown; thinking?: unknown };
          if (typeof text === "string") yield text;
          // A reasoning model's thoughts: not part of the answer.
          else if (typeof thinking === "string") yield "";
          else throw malformed(provider, `a content delta has no text: ${excerpt(data)}`);
          break;
        }
        case "message-end": {
          // The end of every answer: only an error or a failed finish is a failure.
          const { finish_reason: reason, error } = event.delta ?? {};
          if (typeof error === "string" && error.trim()) throw streamError(provider, error.trim());
          if (reason === "ERROR" || reason === "TIMEOUT") {
            throw streamError(provider, `the generation failed (finish reason ${quote(reason)})`);
          }
          return;
        }
        default:
          // message-start, content-start, content-end, citation-start,
          // citation-end, tool and debug events, and those Cohere may add.
          yield "";
      }
    }
    throw malformed(provider, "the stream ended before the answer was finished");
  }
}
