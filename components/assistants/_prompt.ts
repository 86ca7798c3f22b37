/**
 * What svc tells a model: one instruction, then the numbered sources and the
 * question. Each assistant maps the parts to its provider's message format.
 * @module
 */
import type { HistoryMessage } from "../core/params.ts";
import type { Source } from "../core/source.ts";

/** The most tokens of earlier turns a prompt carries. */
export const HISTORY_TOKENS = 1024;

/** A prompt in two parts: the standing instruction and this turn's text. */
export interface PromptParts {
  /** The instruction: how to answer. */
  system: string;
  /** The conversation so far, when there is one, the numbered sources, then the question. */
  user: string;
}

/** The standing instruction, in svc's own words. */
export const INSTRUCTION: string = [
  "You answer questions about a user's documents.",
  "Each question comes with numbered sources: passages taken from those documents,",
  "and may follow earlier turns of the conversation, which say what it refers to.",
  "Answer only from these sources, not from what you know otherwise.",
  "Cite the sources a statement rests on by their numbers in square brackets, like [1] or [2][3].",
  "When the sources do not hold the answer, say so plainly instead of guessing.",
  "Answer in the language of the question.",
].join(" ");

/**
 * The parts of the prompt for a question and its sources: the conversation so
 * far (its latest turns, within {@linkcode HISTORY_TOKENS}), then each source
 * numbered from 1, with its document's name and location, then its passage.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalDocument } from "@svc/svc";
 * import { promptParts } from "./_prompt.ts";
 * const document = LocalDocument.fromPath("/docs/report.pdf");
 * const { user } = await promptParts("What grew?", [
 *   { id: "a", document, location: "1-3", content: "Sales grew.", numTokens: 3 },
 * ]);
 * assert.equal(user, "Sources:\n\n[1] report.pdf, pages 1-3:\nSales grew.\n\nQuestion: What grew?");
 * ```
 */
export async function promptParts(
  prompt: string,
  sources: readonly Source[],
  history: readonly HistoryMessage[] = [],
): Promise<PromptParts> {
  const listed = sources.length === 0
    ? "Sources: none were found for this question."
    : ["Sources:", ...sources.map((source, index) => numbered(index + 1, source))].join("\n\n");
  const turns = await recentTurns(history, HISTORY_TOKENS);
  const conversation = turns.length === 0
    ? ""
    : `Conversation so far:\n\n${turns.join("\n\n")}\n\n`;
  return { system: INSTRUCTION, user: `${conversation}${listed}\n\nQuestion: ${prompt}` };
}

/** The instruction of the call that words a follow-up question to stand alone. */
export const STANDALONE_INSTRUCTION: string = [
  "You rewrite the user's follow-up question so that it can be understood without the",
  "conversation before it: name what it refers to, in the words of the conversation.",
  "Give the rewritten question only, on one line, without answering it and without quotes.",
  "When it already stands alone, give it back as it is.",
  "Keep the language of the question.",
].join(" ");

/** The most tokens of earlier turns the call for a standalone question carries. */
export const STANDALONE_HISTORY_TOKENS = 512;

/**
 * The prompt that asks a model for a follow-up question worded to stand alone:
 * the latest turns of the conversation (within
 * {@linkcode STANDALONE_HISTORY_TOKENS}), then the follow-up.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Message } from "@svc/svc";
 * import { standaloneParts } from "./_prompt.ts";
 * const history = [new Message("How do I freeze bread?", { role: "user" })];
 * const { user } = await standaloneParts("And thaw it?", history);
 * assert.equal(user, "Conversation so far:\n\nUser: How do I freeze bread?\n\nFollow-up question: And thaw it?");
 * ```
 */
export async function standaloneParts(
  prompt: string,
  history: readonly HistoryMessage[],
): Promise<PromptParts> {
  const turns = await recentTurns(history, STANDALONE_HISTORY_TOKENS);
  return {
    system: STANDALONE_INSTRUCTION,
    user: `Conversation so far:\n\n${turns.join("\n\n")}\n\nFollow-up question: ${prompt}`,
  };
}

/** The most characters of a standalone question: a longer reply is not one. */
const MAX_STANDALONE_CHARS = 500;

/**
 * The question in a model's reply to {@linkcode standaloneParts}: its first
 * line, without a label or quotes around it; `undefined` when there is none,
 * or the reply is too long to be one question.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { standaloneOf } from "./_prompt.ts";
 * assert.equal(standaloneOf('Rewritten question: "How do I thaw frozen bread?"\n'), "How do I thaw frozen bread?");
 * assert.equal(standaloneOf("  "), undefined);
 * ```
 */
export function standaloneOf(reply: string): string | undefined {
  const line = reply.trim().split("\n", 1)[0]!
    .replace(/^(?:(?:rewritten|standalone|follow-up)\s+)?question\s*:\s*/i, "")
    .replace(/^["'\u201c\u2018]+|["'\u201d\u2019]+$/g, "")
    .trim();
  return line === "" || line.length > MAX_STANDALONE_CHARS ? undefined : line;
}

/**
 * The latest questions and answers of a conversation, oldest first, as many
 * as fit in `tokens`; the welcome and unfinished answers left out. The
 * tokenizer (about 20 MiB) is loaded by the first conversation that has turns to count, rather
 * than when svc starts.
 */
async function recentTurns(history: readonly HistoryMessage[], tokens: number): Promise<string[]> {
  const turns: string[] = [];
  if (!history.some((message) => message.role !== "system" && message.isComplete)) return turns;
  const { countTokens } = await import("../chunking.ts");
  let used = 0;
  for (const message of [...history].reverse()) {
    if (message.role === "system" || !message.isComplete) continue;
    const turn = `${message.role === "user" ? "User" : "Assistant"}: ${message.content.trim()}`;
    used += countTokens(turn);
    if (used > tokens) break;
    turns.unshift(turn);
  }
  return turns;
}

/** A prompt as chat messages: the instruction as the system's, the sources and question as the user's. */
export type ChatMessages = [
  { role: "system"; content: string },
  { role: "user"; content: string },
];

/**
 * The prompt as the chat messages most providers take.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chatMessages } from "./_prompt.ts";
 * const messages = chatMessages({ system: "Answer.", user: "Question: Why?" });
 * assert.deepEqual(messages.map((message) => message.role), ["system", "user"]);
 * ```
 */
export function chatMessages(prompt: PromptParts): ChatMessages {
  return [{ role: "system", content: prompt.system }, { role: "user", content: prompt.user }];
}

function numbered(number: number, source: Source): string {
  const where = place(source.location.trim());
  const heading = where ? `${source.document.name}, ${where}` : source.document.name;
  return `[${number}] ${heading}:\n${source.content.trim()}`;
}

/** `2` is "page 2", `1-3, 5` is "pages 1-3, 5"; a location in words is kept as it is. */
function place(location: string): string {
  if (/^\d+$/.test(location)) return `page ${location}`;
  if (/^\d[\d\s,-]*$/.test(location)) return `pages ${location}`;
  return location;
}
