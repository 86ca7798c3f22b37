/**
 * Anthropic's Claude models through the Messages API, streamed.
 *
 * Plain `fetch` through `_http.ts`, not `@anthropic-ai/sdk`: the SDK's 1.x
 * line sends its own API version (`anthropic-version: 2026-10-21`) where svc
 * speaks the documented 2023-06-01 stream, it reads environment variables of
 * its own (`ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_CUSTOM_HEADERS`, `ANTHROPIC_LOG`)
 * beside svc's configuration, and it brings 26 MB and three packages for one
 * POST whose six event types take a few lines. `postJson` and
 * `serverSentEvents` give its failures the same words as Ollama's.
 * @module
 */
import { trimSlashes } from "../core/text_scan.ts";
import { quote } from "../core/errors.ts";
import type { Requirement } from "../core/requirements.ts";
import { ModelAssistant, type ModelRequest } from "./_base.ts";
import { excerpt, malformed, ProviderError, providerMessage, streamError } from "./_errors.ts";
import { postJson, serverSentEvents } from "./_http.ts";

const KEY = "ANTHROPIC_API_KEY";
const BASE_URL = "ANTHROPIC_BASE_URL";

/**
 * Anthropic's Claude models through the Messages API, streamed. Needs
 * `ANTHROPIC_API_KEY`; `ANTHROPIC_BASE_URL` points it at another server (default
 * `https://api.anthropic.com`); `SVC_ANTHROPIC_MODEL` names the model (default
 * `claude-sonnet-4-6`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Anthropic } from "@svc/svc/assistants";
 * assert.match(Anthropic.displayName, /^Anthropic\//);
 * assert.deepEqual(Anthropic.requirements.map((r) => r.name), ["ANTHROPIC_API_KEY"]);
 * ```
 */
export class Anthropic extends ModelAssistant {
  static override provider = "Anthropic";
  static override modelEnv = "SVC_ANTHROPIC_MODEL";
  static override defaultModel = "claude-sonnet-4-6";

  static override get requirements(): readonly Requirement[] {
    return [this.envRequirement(KEY)];
  }

  protected override async *stream(request: ModelRequest): AsyncGenerator<string> {
    const { config } = this;
    const { provider } = config;
    const base = trimSlashes(this.setting(BASE_URL) ?? "https://api.anthropic.com");
    const response = await postJson(`${base}/v1/messages`, {
      model: request.model,
      system: request.prompt.system,
      messages: [{ role: "user", content: request.prompt.user }],
      max_tokens: request.maxNewTokens,
      temperature: 0,
      stream: true,
    }, {
      provider,
      signal: request.signal,
      headers: { "x-api-key": this.required(KEY), "anthropic-version": "2023-06-01" },
    });
    for await (const { data } of serverSentEvents(response.body, provider)) {
      const event = data as { type?: unknown; delta?: Record<string, unknown> | null };
      if (typeof data !== "object" || data === null || typeof event.type !== "string") {
        throw malformed(provider, `an event has no "type": ${excerpt(data)}`);
      }
      switch (event.type) {
        case "content_block_delta": {
          const { delta } = event;
          if (typeof delta !== "object" || delta === null || typeof delta.type !== "string") {
            throw malformed(provider, `a delta has no "type": ${excerpt(data)}`);
          }
          // Thinking, citations, a tool call's JSON: not part of the answer's text.
          if (delta.type !== "text_delta") {
            yield "";
          } else if (typeof delta.text !== "string") {
            throw malformed(provider, `a text delta has no text: ${excerpt(data)}`);
          } else {
            yield delta.text;
          }
          break;
        }
        case "message_delta": {
          const reason = event.delta?.stop_reason;
          if (reason === "refusal") {
            throw new ProviderError(
              provider,
              `${provider} refused to answer (stop reason ${quote(reason)})`,
            );
          }
          yield "";
          break;
        }
        case "message_stop":
          return;
        case "error":
          throw streamError(provider, providerMessage(data) || excerpt(data));
        default:
          // message_start, content_block_start, content_block_stop, ping, and
          // the event types Anthropic may add, as its versioning policy says.
          yield "";
      }
    }
    throw malformed(provider, "the stream ended before the answer was finished");
  }
}
