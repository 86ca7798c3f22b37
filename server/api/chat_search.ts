/**
 * `GET /chats/search`: the user's chats that hold every word asked for, in
 * their names, their documents' names or their messages, with where in the
 * messages. The page's chat list has no messages, so the search is the
 * API's: it reads the user's chats as `GET /chats` does, and sends back a
 * line for each chat found rather than every message.
 * @module
 */
import { Hono } from "hono";
import { quote, SvcError } from "../../components/core/errors.ts";
import type { ChatRecord } from "../database/mod.ts";
import type { ApiEnv } from "./env.ts";
import { type ChatSearchHit, ChatSearchQuery, MAX_SEARCH_LENGTH } from "./schemas.ts";
import { requestUser } from "./user.ts";

/** The most chats a search gives, the latest first. */
export const MAX_SEARCH_HITS = 50;

/** The most words a search looks for. */
const MAX_WORDS = 12;

/** The characters a snippet keeps before and after the word it shows. */
const BEFORE = 60;
const AFTER = 100;

/** The route that searches the user's chats. */
export function chatSearchRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/chats/search", async (c) => {
    const user = await requestUser(c);
    const query = ChatSearchQuery.safeParse(c.req.query());
    if (!query.success) {
      throw new SvcError(
        `The query parameter "q" must be 1 to ${MAX_SEARCH_LENGTH} characters, not ${
          quote(c.req.query("q") ?? "")
        }`,
        { status: 422 },
      );
    }
    const chats = await c.var.deps.database.listChats(user);
    return c.json(searchChats(chats, query.data.q));
  });
  return app;
}

/** Text as it is compared: lower case, without accents. */
function folded(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
}

/**
 * The chats that hold every word of `query`, the one with the latest
 * message first, at most {@linkcode MAX_SEARCH_HITS}, each with the message
 * that holds most of the words (the latest of those) and a snippet of it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { searchChats } from "./chat_search.ts";
 * const message = (id: string, content: string) =>
 *   ({ id, content, role: "assistant" as const, sources: [], citations: [], timestamp: "2026-01-01T00:00:00Z" });
 * const chat = {
 *   id: "c1", prepared: true,
 *   metadata: { name: "Bakery", source_storage: "", assistant: "", params: {}, documents: [] },
 *   messages: [message("m1", "The winter loaf has cardamom.")],
 * };
 * assert.deepEqual(searchChats([chat], "CARDAMOM loaf"), [
 *   { chat_id: "c1", message_id: "m1", snippet: "The winter loaf has cardamom." },
 * ]);
 * assert.deepEqual(searchChats([chat], "cardamom rye"), []);
 * ```
 */
export function searchChats(chats: readonly ChatRecord[], query: string): ChatSearchHit[] {
  const words = [...new Set(folded(query).split(/\s+/).filter(Boolean))].slice(0, MAX_WORDS);
  if (words.length === 0) return [];
  const found: { hit: ChatSearchHit; latest: string }[] = [];
  for (const chat of chats) {
    const names = folded(
      [chat.metadata.name, ...chat.metadata.documents.map((d) => d.name)].join("\n"),
    );
    let best: { id: string; text: string; count: number } | undefined;
    const inMessages = new Set<string>();
    for (const message of chat.messages) {
      const text = folded(message.content);
      const count = words.filter((word) => text.includes(word)).length;
      if (count === 0) continue;
      for (const word of words) if (text.includes(word)) inMessages.add(word);
      if (!best || count >= best.count) best = { id: message.id, text: message.content, count };
    }
    if (!words.every((word) => inMessages.has(word) || names.includes(word))) continue;
    found.push({
      hit: {
        chat_id: chat.id,
        message_id: best?.id ?? null,
        snippet: best ? snippet(best.text, words) : "",
      },
      latest: chat.messages.at(-1)?.timestamp ?? "",
    });
  }
  found.sort((a, b) => b.latest.localeCompare(a.latest));
  return found.slice(0, MAX_SEARCH_HITS).map(({ hit }) => hit);
}

/** The text around the first of the words in it, on one line, cut with "…". */
function snippet(text: string, words: readonly string[]): string {
  const plain = text.replace(/\s+/g, " ").trim();
  // Folding keeps the length of most texts; where it does not, the snippet starts at the start.
  const lower = folded(plain);
  const at = lower.length === plain.length
    ? Math.min(...words.map((word) => lower.indexOf(word)).filter((index) => index >= 0))
    : 0;
  const start = Math.max(0, at - BEFORE);
  const end = Math.min(plain.length, at + AFTER);
  return `${start > 0 ? "…" : ""}${plain.slice(start, end).trim()}${end < plain.length ? "…" : ""}`;
}
