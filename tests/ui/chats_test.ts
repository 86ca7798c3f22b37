import assert from "node:assert/strict";
import { byActivity, lastActivity } from "../../ui/chats.ts";

const chat = (id: string, ...timestamps: string[]) => ({
  id,
  messages: timestamps.map((timestamp) => ({ timestamp })),
});

Deno.test("byActivity() puts the chat with the latest message first", () => {
  const sorted = byActivity([
    chat("a", "2024-01-01T10:00:00Z", "2024-03-01T10:00:00Z"),
    chat("b", "2024-02-01T10:00:00Z"),
    chat("c", "2024-01-15T10:00:00Z", "2024-04-01T09:00:00Z"),
  ]);
  assert.deepEqual(sorted.map((c) => c.id), ["c", "a", "b"]);
});

Deno.test("byActivity() puts chats without messages first, the newest created first", () => {
  const sorted = byActivity([chat("old", "2024-01-01T10:00:00Z"), chat("new1"), chat("new2")]);
  assert.deepEqual(sorted.map((c) => c.id), ["new2", "new1", "old"]);
});

Deno.test("lastActivity() ignores timestamps it cannot read", () => {
  assert.equal(lastActivity(chat("x", "soon", "2024-01-01T00:00:00Z")), Date.UTC(2024, 0, 1));
  assert.equal(lastActivity(chat("x")), undefined);
});

Deno.test("lastActivity() takes the list's time of the last message before the messages are read", () => {
  const listed = { id: "x", messages: [], last_activity: "2024-05-01T00:00:00Z" };
  assert.equal(lastActivity(listed), Date.UTC(2024, 4, 1));
  assert.equal(lastActivity({ ...listed, last_activity: null }), undefined);
  const sorted = byActivity([chat("read", "2024-03-01T00:00:00Z"), listed]);
  assert.deepEqual(sorted.map((c) => c.id), ["x", "read"]);
  // Messages asked since the list was read are newer than its time.
  const asked = { ...listed, messages: [{ timestamp: "2024-06-01T00:00:00Z" }] };
  assert.equal(lastActivity(asked), Date.UTC(2024, 5, 1));
});
