/**
 * Follow-up questions: "and how do I undo that?" names nothing a search can
 * find; the questions before it do. Retrieval searches for such a prompt as
 * the chat's assistant words it to stand alone, when it is a model that can
 * (one short call), else as the next turn of the conversation; and for a
 * question that names its own subject as it is.
 * @module
 */
import type { HistoryMessage } from "../core/params.ts";
import { contentWords } from "../text/words.ts";

/** How many of the user's earlier questions a follow-up is searched with. */
export const FOLLOW_UP_TURNS = 2;

// Words that point back to what was asked before: "undo that", "its size", "also for DOCX".
const POINTING_BACK = new Set(
  "it its that this these those they them their there also too else same such instead again"
    .split(" "),
);
// How a question begins that goes on from the one before: "And for PPTX?", "What about tables?".
const GOING_ON = /^\s*(?:and|but|or|so|then|also|what about|how about)\b/i;
const WORD = /[\p{L}\p{N}]+/gu;

/**
 * Whether a prompt reads as the next turn of a conversation rather than as a
 * question of its own: it names at most two words of its own ("And how do I
 * undo that?", "Why?"), three with a word that points back ("Does that also
 * work for DOCX files?"), or four after a word that goes on from the question
 * before ("And what about tables in DOCX files?"). Words of its own are
 * {@linkcode contentWords}: function words ("how", "do", "that") are not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readsAsFollowUp } from "./follow_up.ts";
 * assert.equal(readsAsFollowUp("And how do I thaw it?"), true);
 * assert.equal(readsAsFollowUp("How long can bread stay frozen?"), false);
 * ```
 */
export function readsAsFollowUp(prompt: string): boolean {
  const own = contentWords(prompt).length;
  if (own <= 2) return true;
  if (GOING_ON.test(prompt)) return own <= 4;
  return own <= 3 &&
    (prompt.toLowerCase().match(WORD) ?? []).some((word) => POINTING_BACK.has(word));
}

/**
 * The text to search for a prompt as a turn of its conversation: the user's
 * last {@linkcode FOLLOW_UP_TURNS} questions before it, then the prompt; or
 * `undefined` when the user asked nothing before, or when the prompt names
 * its own subject ({@linkcode readsAsFollowUp}), so that a question asked after
 * others about something else is not searched for with their words. The
 * assistant's answers are left out: they hold the words of the passages found
 * for the earlier questions, which would pull the search back to them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Message } from "../core/message.ts";
 * import { followUpText } from "./follow_up.ts";
 * const history = [
 *   new Message("How do I freeze bread?", { role: "user" }),
 *   new Message("Wrap it and freeze it.", { role: "assistant" }),
 * ];
 * assert.equal(followUpText("And how do I thaw it?", history), "How do I freeze bread?\nAnd how do I thaw it?");
 * assert.equal(followUpText("How long does rye dough rise?", history), undefined);
 * assert.equal(followUpText("How do I bake bread?", []), undefined);
 * ```
 */
export function followUpText(
  prompt: string,
  history: readonly HistoryMessage[] | undefined,
): string | undefined {
  const asked = (history ?? []).filter((message) => message.role === "user" && message.isComplete)
    .slice(-FOLLOW_UP_TURNS).map((message) => message.content.trim()).filter(Boolean);
  return asked.length === 0 || !readsAsFollowUp(prompt) ? undefined : [...asked, prompt].join("\n");
}

/**
 * What retrieval searches for a prompt: the prompt itself, unless it reads as
 * a follow-up ({@linkcode followUpText}); then the question that `ask` (the
 * chat's assistant) words to stand alone, or, when it gives none or the
 * follow-up as it was, fails or does not answer in time, the follow-up with
 * the questions before it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Message } from "../core/message.ts";
 * import { followUpSearch } from "./follow_up.ts";
 * const history = [new Message("How do I freeze bread?", { role: "user" })];
 * const ask = () => Promise.resolve("How do I thaw frozen bread?");
 * assert.equal(await followUpSearch("And how do I thaw it?", history, ask), "How do I thaw frozen bread?");
 * const broken = () => Promise.reject(new Error("The model did not answer"));
 * assert.equal(await followUpSearch("And how do I thaw it?", history, broken), "How do I freeze bread?\nAnd how do I thaw it?");
 * assert.equal(await followUpSearch("How long does rye dough rise?", history, ask), "How long does rye dough rise?");
 * ```
 */
export async function followUpSearch(
  prompt: string,
  history: readonly HistoryMessage[] | undefined,
  ask?: (prompt: string, history: readonly HistoryMessage[]) => Promise<string | undefined>,
): Promise<string> {
  const rule = followUpText(prompt, history);
  if (rule === undefined) return prompt;
  if (!ask) return rule;
  let asked: string | undefined;
  try {
    asked = (await ask(prompt, history ?? []))?.trim();
  } catch {
    // The assistant's model failed or was too slow: the rule does without it.
    return rule;
  }
  // A model that gives the follow-up back as it was says nothing the rule's text does not hold.
  const same = (a: string, b: string) =>
    a.toLowerCase().replace(/\s+/g, " ") === b.toLowerCase().replace(/\s+/g, " ");
  return asked && !same(asked, prompt.trim()) ? asked : rule;
}
