/**
 * Times as people read them, in the browser's language and time zone.
 * @module
 */

/** A default chat name from the current time: `Chat 25 Nov, 14:03`. */
export function defaultChatName(now: Date = new Date()): string {
  const date = now.toLocaleDateString(undefined, { day: "numeric", month: "short" });
  const time = now.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  return `Chat ${date}, ${time}`;
}

/** A message time: the clock time today, else the date and time. */
export function formatMessageTime(timestamp: string, now: Date = new Date()): string {
  const time = new Date(timestamp);
  if (Number.isNaN(time.getTime())) return "";
  const clock = time.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  if (time.toDateString() === now.toDateString()) return clock;
  const date = time.toLocaleDateString(undefined, { day: "numeric", month: "short" });
  return `${date}, ${clock}`;
}

/**
 * How long ago, short: `just now`, `5 min ago`, `3 h ago`, `2 d ago`, else a date.
 *
 * @example
 * ```ts
 * import { timeAgo } from "./time.ts";
 * const now = new Date("2024-05-01T12:00:00Z");
 * console.assert(timeAgo(Date.parse("2024-05-01T11:55:00Z"), now) === "5 min ago");
 * ```
 */
export function timeAgo(time: number, now: Date = new Date()): string {
  const seconds = Math.max(0, (now.getTime() - time) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  if (seconds < 7 * 86400) return `${Math.floor(seconds / 86400)} d ago`;
  return new Date(time).toLocaleDateString(undefined, { day: "numeric", month: "short" });
}
