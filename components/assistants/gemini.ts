/**
 * Google's Gemini models through the Gemini API's `streamGenerateContent`.
 *
 * Plain `fetch` through `_http.ts`, not `@google/genai`: the SDK reopens a
 * stream by itself when it drops or ends without a finish reason (its
 * "automatic continuation"), where svc retries only before the first text and
 * reports a cut stream; its errors carry the provider's body as JSON text in
 * the message (`got status: 400. {"error":...}`) or are plain `Error`s for
 * malformed data, which would have to be parsed back; and it brings
 * `google-auth-library`, `protobufjs` and `ws` for one POST. With `alt=sse`
 * the answer is ordinary server-sent events, which `serverSentEvents` reads
 * like every other provider's.
 * @module
 */
import { trimSlashes } from "../core/text_scan.ts";
import { quote, SvcError } from "../core/errors.ts";
import { EnvVarRequirement, type Requirement } from "../core/requirements.ts";
import { secrets } from "../core/secrets.ts";
import { ModelAssistant, type ModelRequest } from "./_base.ts";
import { excerpt, malformed, ProviderError, providerMessage, streamError } from "./_errors.ts";
import { postJson, serverSentEvents } from "./_http.ts";

const KEY = "GOOGLE_API_KEY";
const OTHER_KEY = "GEMINI_API_KEY";
const BASE_URL = "GOOGLE_GEMINI_BASE_URL";

/** Finish reasons that mean Google's filters stopped the answer. */
const BLOCKED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"]);

/**
 * Google's Gemini models, streamed. Needs `GOOGLE_API_KEY` (or
 * `GEMINI_API_KEY`; the first wins when both are set), sent in the
 * `x-goog-api-key` header; `GOOGLE_GEMINI_BASE_URL` points it at another
 * server (default `https://generativelanguage.googleapis.com`);
 * `SVC_GEMINI_MODEL` names the model (default `gemini-2.5-flash`). A thinking
 * model counts its thinking toward `max_new_tokens`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Gemini } from "@svc/svc/assistants";
 * assert.match(Gemini.displayName, /^Gemini\//);
 * const [key] = Gemini.requirements;
 * assert.equal(key?.name, "GOOGLE_API_KEY or GEMINI_API_KEY");
 * ```
 */
export class Gemini extends ModelAssistant {
  static override provider = "Gemini";
  static override modelEnv = "SVC_GEMINI_MODEL";
  static override defaultModel = "gemini-2.5-flash";

  /** The key: `GOOGLE_API_KEY`, else `GEMINI_API_KEY`. */
  static apiKey(): string | undefined {
    return this.env(KEY) ?? this.env(OTHER_KEY);
  }

  static override get requirements(): readonly Requirement[] {
    return [new GeminiKeyRequirement(this)];
  }

  protected override async *stream(request: ModelRequest): AsyncGenerator<string> {
    const config = this.config as typeof Gemini;
    const { provider } = config;
    const key = config.apiKey();
    if (key === undefined) {
      throw new SvcError(
        `${provider} needs the environment variable ${quote(KEY)} (or ${quote(OTHER_KEY)}), ` +
          "which is unset",
      );
    }
    secrets.add(key);
    const base = trimSlashes(this.setting(BASE_URL) ?? "https://generativelanguage.googleapis.com");
    const url = `${base}/v1beta/models/${request.model}:streamGenerateContent?alt=sse`;
    const response = await postJson(url, {
      systemInstruction: { parts: [{ text: request.prompt.system }] },
      contents: [{ role: "user", parts: [{ text: request.prompt.user }] }],
      generationConfig: { temperature: 0, maxOutputTokens: request.maxNewTokens },
    }, { provider, signal: request.signal, headers: { "x-goog-api-key": key } });
    let wrote = false;
    for await (const { data } of serverSentEvents(response.body, provider)) {
      if (typeof data !== "object" || data === null || Array.isArray(data)) {
        throw malformed(provider, `a chunk is not an object: ${excerpt(data)}`);
      }
      const chunk = data as Record<string, unknown>;
      if (chunk.error !== undefined) {
        throw streamError(provider, providerMessage(chunk) || excerpt(chunk));
      }
      const blockReason = (chunk.promptFeedback as { blockReason?: unknown } | undefined)
        ?.blockReason;
      if (typeof blockReason === "string") {
        throw new ProviderError(
          provider,
          `${provider} blocked the answer because of the question or its sources ` +
            `(block reason ${quote(blockReason)})`,
        );
      }
      const { candidates } = chunk;
      if (candidates === undefined && chunk.usageMetadata !== undefined) {
        yield "";
        continue;
      }
      if (!Array.isArray(candidates)) {
        throw malformed(provider, `a chunk has no "candidates": ${excerpt(chunk)}`);
      }
      const candidate: unknown = candidates[0] ?? {};
      if (typeof candidate !== "object" || candidate === null) {
        throw malformed(provider, `a candidate is not an object: ${excerpt(chunk)}`);
      }
      const { content, finishReason } = candidate as { content?: unknown; finishReason?: unknown };
      const text = textOf(content, provider, chunk);
      wrote ||= text !== "";
      yield text;
      if (finishReason === undefined || finishReason === null) continue;
      if (typeof finishReason !== "string") {
        throw malformed(provider, `a finish reason is not text: ${excerpt(chunk)}`);
      }
      if (finishReason === "STOP") return;
      if (finishReason === "MAX_TOKENS") {
        if (wrote) return;
        throw new ProviderError(
          provider,
          `${provider} reached max_new_tokens (${request.maxNewTokens}) before it wrote any ` +
            "text: a thinking model counts its thinking toward them, so raise max_new_tokens",
        );
      }
      if (BLOCKED.has(finishReason)) {
        throw new ProviderError(
          provider,
          `${provider} blocked the answer (finish reason ${quote(finishReason)})`,
        );
      }
      throw new ProviderError(
        provider,
        `${provider} stopped the answer early (finish reason ${quote(finishReason)})`,
      );
    }
    throw malformed(provider, "the stream ended before the answer was finished");
  }
}

/** The text of a candidate's content: its parts' texts, without thoughts. */
function textOf(content: unknown, provider: string, chunk: unknown): string {
  if (content === undefined) return "";
  const parts = (content as { parts?: unknown } | null)?.parts ?? [];
  if (!Array.isArray(parts)) {
    throw malformed(provider, `a candidate's parts are not a list: ${excerpt(chunk)}`);
  }
  let text = "";
  for (const part of parts) {
    if (typeof part !== "object" || part === null) {
      throw malformed(provider, `a part is not an object: ${excerpt(chunk)}`);
    }
    const { text: piece, thought } = part as { text?: unknown; thought?: unknown };
    // A thought summary, or a part without text (a function call): not the answer.
    if (thought === true || piece === undefined) continue;
    if (typeof piece !== "string") {
      throw malformed(provider, `a part's text is not text: ${excerpt(chunk)}`);
    }
    text += piece;
  }
  return text;
}

/** `GOOGLE_API_KEY`, met by `GEMINI_API_KEY` too: `svc check` names both. */
class GeminiKeyRequirement extends EnvVarRequirement {
  constructor(private readonly owner: typeof Gemini) {
    super(`${KEY} or ${OTHER_KEY}`);
  }

  override isAvailable(): Promise<boolean> {
    return Promise.resolve(this.owner.apiKey() !== undefined);
  }
}
