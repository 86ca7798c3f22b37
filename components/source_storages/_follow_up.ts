/**
 * Follow-up questions: "and how do I undo that?" names nothing a search can
 * find; the questions before it do. Retrieval searches for the prompt as the
 * next turn of the conversation, without asking a model to rewrite it.
 * @module
 */
import type { HistoryMessage } from "../core/params.ts";

/** How many of the user's earlier questions a follow-up is searched with. */
export const FOLLOW_UP_TURNS = 2;

/**
 * The text to search for a prompt as a turn of its conversation: the user's
 * last {@linkcode FOLLOW_UP_TURNS} questions before it, then the prompt; or
 * `undefined` when the user asked nothing before. The assistant's answers are
 * left out: they hold the words of the passages found for the earlier
 * questions, which would pull the search back to them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Message } from "../core/message.ts";
 * import { followUpText } from "./_follow_up.ts";
 * const history = [
 *   new Message("How do I freeze bread?", { role: "user" }),
 *   new Message("Wrap it and freeze it.", { role: "assistant" }),
 * ];
 * assert.equal(followUpText("And how do I thaw it?", history), "How do I freeze bread?\nAnd how do I thaw it?");
 * assert.equal(followUpText("How do I bake bread?", []), undefined);
 * ```
 */
export function followUpText(
  prompt: string,
  history: readonly HistoryMessage[] | undefined,
): string | undefined {
  const asked = (history ?? []).filter((message) => message.role === "user" && message.isComplete)
    .slice(-FOLLOW_UP_TURNS).map((message) => message.content.trim()).filter(Boolean);
  return asked.length === 0 ? undefined : [...asked, prompt].join("\n");
}
