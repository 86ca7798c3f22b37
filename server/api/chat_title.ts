/**
 * The title a chat without a name takes from its first question.
 * @module
 */

/** The longest title, in characters, ellipsis included: what a chat list shows on one line. */
export const MAX_TITLE_LENGTH = 48;

/**
 * A short title from a question: its white space collapsed, cut at a word
 * boundary with an ellipsis when it is longer than
 * {@linkcode MAX_TITLE_LENGTH}; `"New chat"` for a question of no words.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chatTitle } from "./chat_title.ts";
 * assert.equal(chatTitle("  What does the\nreport say? "), "What does the report say?");
 * assert.equal(
 *   chatTitle("Which of the three suppliers named in the annual report delivered late?"),
 *   "Which of the three suppliers named in the…",
 * );
 * ```
 */
export function chatTitle(question: string): string {
  const words = question.split(/\s+/).filter(Boolean);
  const text = words.join(" ");
  if (text === "") return "New chat";
  if ([...text].length <= MAX_TITLE_LENGTH) return text;
  let title = "";
  for (const word of words) {
    const next = title ? `${title} ${word}` : word;
    if ([...next].length + 1 > MAX_TITLE_LENGTH) break;
    title = next;
  }
  // A first word longer than the title is cut inside it.
  if (title === "") title = [...text].slice(0, MAX_TITLE_LENGTH - 1).join("");
  return `${title.replace(/[\s,;:.!?-]+$/u, "")}…`;
}
