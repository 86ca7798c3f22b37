import assert from "node:assert/strict";
import { defaultChatName, formatMessageTime, timeAgo } from "../../ui/time.ts";

Deno.test("timeAgo() is short and rounds down", () => {
  const now = new Date("2024-05-10T12:00:00Z");
  const ago = (seconds: number) => timeAgo(now.getTime() - seconds * 1000, now);
  assert.equal(ago(5), "just now");
  assert.equal(ago(-30), "just now");
  assert.equal(ago(125), "2 min ago");
  assert.equal(ago(3 * 3600 + 5), "3 h ago");
  assert.equal(ago(2 * 86400), "2 d ago");
  assert.match(ago(30 * 86400), /10|Apr/);
});

Deno.test("formatMessageTime() shows the clock today and adds the date otherwise", () => {
  const now = new Date(2024, 4, 10, 15, 0);
  const today = formatMessageTime(new Date(2024, 4, 10, 9, 5).toISOString(), now);
  const earlier = formatMessageTime(new Date(2024, 3, 2, 9, 5).toISOString(), now);
  assert.match(today, /09:05|9:05/);
  assert.ok(earlier.length > today.length && earlier.includes(today));
  assert.equal(formatMessageTime("not a time", now), "");
});

Deno.test("defaultChatName() names the chat after the time", () => {
  assert.match(defaultChatName(new Date(2024, 4, 10, 15, 7)), /^Chat .*10.*15:07|^Chat .*10.*3:07/);
});
