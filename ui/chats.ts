/**
 * The chat list's order: most recent activity first.
 * @module
 */
/**
 * What ordering needs of a chat: the messages it has on the page, and the
 * time of its last message as the list of chats gave it, before they were read.
 */
export interface WithMessages {
  messages: readonly { timestamp: string }[];
  last_activity?: string | null;
}

/** The time of a chat's last message, or `undefined` for a chat without any. */
export function lastActivity(chat: WithMessages): number | undefined {
  let latest: number | undefined;
  const times = chat.messages.map((message) => message.timestamp);
  if (chat.last_activity) times.push(chat.last_activity);
  for (const timestamp of times) {
    const time = Date.parse(timestamp);
    if (!Number.isNaN(time) && (latest === undefined || time > latest)) latest = time;
  }
  return latest;
}

/**
 * The chats with the most recent activity first. A chat without messages
 * was just created (or never prepared), so it comes first; ties keep the
 * newest created first, and the API lists chats oldest first.
 *
 * @example
 * ```ts
 * import { byActivity } from "./chats.ts";
 * const chat = (id: string, timestamp?: string) => ({
 *   id, prepared: true,
 *   metadata: { name: id, source_storage: "", assistant: "", params: {}, documents: [] },
 *   messages: timestamp ? [{ id, content: "", role: "user" as const, sources: [], timestamp }] : [],
 * });
 * const sorted = byActivity([chat("old", "2024-01-01T00:00:00Z"), chat("new", "2024-02-01T00:00:00Z")]);
 * console.assert(sorted[0]!.id === "new");
 * ```
 */
export function byActivity<T extends WithMessages>(chats: readonly T[]): T[] {
  const keyed = chats.map((chat, index) => ({
    chat,
    index,
    time: lastActivity(chat) ?? Number.POSITIVE_INFINITY,
  }));
  keyed.sort((a, b) => b.time - a.time || b.index - a.index);
  return keyed.map(({ chat }) => chat);
}
