/**
 * The chunks of OpenAI's Chat Completions stream, which other providers
 * (AI21) speak too.
 * @module
 */
import { excerpt, malformed } from "./_errors.ts";

/** What one chunk of a Chat Completions stream says. */
export interface ChatCompletionDelta {
  /** The text of the first choice's delta; `""` when it has none. */
  text: string;
  /** Whether the chunk has a finish reason: the answer is over. */
  done: boolean;
}

/**
 * The text of a Chat Completions chunk, and whether it ends the answer. A
 * chunk without choices (the one that carries the usage) has no text.
 *
 * @throws {ProviderError} for a chunk without `choices` or whose content is not text
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chatCompletionDelta } from "./_chat_completions.ts";
 * const chunk = { choices: [{ delta: { content: "Hi" }, finish_reason: "stop" }] };
 * assert.deepEqual(chatCompletionDelta(chunk, "OpenAI"), { text: "Hi", done: true });
 * ```
 */
export function chatCompletionDelta(chunk: unknown, provider: string): ChatCompletionDelta {
  const choices: unknown = (chunk as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices)) {
    throw malformed(provider, `a chunk has no "choices": ${excerpt(chunk)}`);
  }
  if (choices.length === 0) return { text: "", done: false };
  const { delta, finish_reason } = (choices[0] ?? {}) as {
    delta?: { content?: unknown } | null;
    finish_reason?: unknown;
  };
  const content = delta?.content ?? "";
  if (typeof content !== "string") {
    throw malformed(provider, `a chunk's content is not text: ${excerpt(chunk)}`);
  }
  return { text: content, done: Boolean(finish_reason) };
}
