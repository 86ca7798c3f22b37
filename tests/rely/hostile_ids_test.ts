/**
 * Another user's ids on every route: the answer is the 404 of a missing id, word for word, and
 * the owner's data is untouched.
 * @module
 */
import assert from "node:assert/strict";
import { testApi } from "../server/api/_api.ts";
import { chatBody, expectError, preparedChat } from "./_hostile.ts";

const MISSING = "00000000-0000-4000-8000-000000000000";

Deno.test("another user's chat or document is a 404 like a missing one, on every route", async () => {
  await using api = await testApi();
  const { chat, document } = await preparedChat(api);
  const before = await (await api.call("GET", `/chats/${chat.id}`)).json();
  await api.as("bob");

  const routes: [string, (id: string) => string, unknown?][] = [
    ["GET", (id) => `/chats/${id}`],
    ["DELETE", (id) => `/chats/${id}`],
    ["POST", (id) => `/chats/${id}/prepare`],
    ["POST", (id) => `/chat/${id}/prepare`],
    ["POST", (id) => `/chats/${id}/answer`, { prompt: "What is in it?" }],
    ["POST", (id) => `/chats/${id}/answer`, { prompt: "What is in it?", stream: true }],
    ["POST", (id) => `/chat/${id}/answer`, { prompt: "What is in it?" }],
  ];
  for (const [method, path, body] of routes) {
    const missing = await expectError(await api.call(method, path(MISSING), body), 404, /^No chat/);
    const theirs = await expectError(await api.call(method, path(chat.id), body), 404, /^No chat/);
    assert.equal(theirs, missing.replace(MISSING, chat.id), `${method} ${path("{id}")}`);
  }
  // A chat over another user's document, by its id (whatever name is given with it).
  for (const named of [document, { id: document.id, name: "mine.md" }]) {
    await expectError(
      await api.call("POST", "/chats", chatBody(named)),
      404,
      `No document "${document.id}"`,
    );
  }
  await expectError(
    await api.call("POST", "/chats", chatBody({ id: MISSING, name: "x.md" })),
    404,
    `No document "${MISSING}"`,
  );
  assert.deepEqual(await (await api.call("GET", "/chats")).json(), []);

  await api.as("ada");
  const after = await (await api.call("GET", `/chats/${chat.id}`)).json();
  assert.deepEqual(after, before, "the owner's chat is untouched");
});
