/**
 * What the page makes of a chat's stored messages and name: an answer in
 * place of one that was never kept, so that a question is always followed by
 * one, and the name of a chat that has none yet; and the search over the chat list.
 * @module
 */
import type { Message } from "./api_types.ts";

/** Where an answer stands while and after it streams. */
export type AnswerState = "waiting" | "streaming" | "stopped" | "failed";

/** A message as the page shows it. */
export interface ViewMessage extends Message {
  /** Stable across the stream, unlike `id`, which the first line sets. */
  key: string;
  state?: AnswerState;
  /** Why an answer failed, as the server said. */
  error?: string;
  /** The status of the response that failed (0: no answer), when the page got one. */
  errorStatus?: number;
  /** What whoever runs svc needs to know of the failure. */
  errorDetails?: string;
}

/** What a chat without a name is called until its first question names it. */
export const UNNAMED_CHAT = "New chat";

/** The name a chat is shown with. */
export function chatName(chat: { metadata: { name: string } }): string {
  return chat.metadata.name.trim() || UNNAMED_CHAT;
}

/**
 * The messages as the page shows them: a question that no answer follows
 * (the server stopped before it kept one) gets a failed answer after it, which
 * offers to answer again, so that two questions never stand in a row. The last
 * question while its answer is being asked for is left as it is.
 *
 * @example
 * ```ts
 * import { withAnswers } from "./conversation.ts";
 * const m = (role: "user" | "assistant", key: string) =>
 *   ({ id: key, key, role, content: key, sources: [], timestamp: "" });
 * const shown = withAnswers([m("user", "q1"), m("user", "q2"), m("assistant", "a2")], false);
 * console.assert(shown.map((x) => x.role).join() === "user,assistant,user,assistant");
 * console.assert(shown[1]!.state === "failed");
 * ```
 */
export function withAnswers(messages: readonly ViewMessage[], answering: boolean): ViewMessage[] {
  const shown: ViewMessage[] = [];
  messages.forEach((message, index) => {
    shown.push(message);
    if (message.role !== "user") return;
    const next = messages[index + 1];
    if (next?.role === "assistant") return;
    if (next === undefined && answering) return;
    shown.push({
      id: `${message.key}-unanswered`,
      key: `${message.key}-unanswered`,
      role: "assistant",
      content: "",
      sources: [],
      citations: [],
      timestamp: message.timestamp,
      state: "failed",
      error: "No answer was kept for this question",
    });
  });
  return shown;
}

/**
 * Whether a chat matches what was typed in the search box: every word of it
 * is in the chat's name or in one of its documents' names, whatever the case.
 *
 * @example
 * ```ts
 * import { matchesSearch } from "./conversation.ts";
 * const chat = { metadata: { name: "Budget 2026", documents: [{ id: "d", name: "plan.pdf" }] } };
 * console.assert(matchesSearch(chat, "budget PLAN"));
 * console.assert(!matchesSearch(chat, "holiday"));
 * console.assert(matchesSearch(chat, "  "));
 * ```
 */
export function matchesSearch(
  chat: { metadata: { name: string; documents: readonly { name: string }[] } },
  query: string,
): boolean {
  const words = query.toLocaleLowerCase().split(/\s+/).filter(Boolean);
  const text = [chatName(chat), ...chat.metadata.documents.map((d) => d.name)]
    .join("\n").toLocaleLowerCase();
  return words.every((word) => text.includes(word));
}
