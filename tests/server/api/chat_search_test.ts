import assert from "node:assert/strict";
import { type TestApi, testApi } from "./_api.ts";

/** A prepared chat of the demo components over one note, with `prompts` asked and answered. */
async function chatWith(api: TestApi, name: string, prompts: string[]): Promise<string> {
  const { document } = await api.upload("notes.md", "# Notes\n\nThe winter loaf has cardamom.");
  const created = await api.call("POST", "/chats", {
    name,
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [document],
  });
  const chat = await created.json();
  await (await api.call("POST", `/chats/${chat.id}/prepare`)).body?.cancel();
  for (const prompt of prompts) {
    await (await api.call("POST", `/chats/${chat.id}/answer`, { prompt })).body?.cancel();
  }
  return chat.id;
}

async function search(api: TestApi, q: string) {
  const response = await api.call("GET", `/chats/search?q=${encodeURIComponent(q)}`);
  assert.equal(response.status, 200, q);
  return await response.json() as { chat_id: string; message_id: string | null; snippet: string }[];
}

Deno.test("GET /chats/search finds the user's chats by the words of their messages, with where", async () => {
  await using api = await testApi();
  const bakery = await chatWith(api, "Bakery", ["What spice is in the Wïnter loaf?"]);
  const garden = await chatWith(api, "Garden", ["When are the tomatoes harvested?"]);

  const found = await search(api, "winter SPICE");
  assert.equal(found.length, 1);
  assert.equal(found[0]!.chat_id, bakery);
  // The message with the words: the question, or the demo answer that repeats it.
  const chat = await (await api.call("GET", `/chats/${bakery}`)).json();
  const holding = chat.messages
    .filter((m: { content: string }) => m.content.includes("What spice is in the Wïnter loaf?"))
    .map((m: { id: string }) => m.id);
  assert.ok(holding.includes(found[0]!.message_id), "the message that holds the words");
  assert.match(found[0]!.snippet, /spice is in the Wïnter loaf/);

  // A chat found by its name alone has no message to show.
  assert.deepEqual(await search(api, "GARDEN"), [
    { chat_id: garden, message_id: null, snippet: "" },
  ]);
  // Every word must be in the chat, not some.
  assert.deepEqual(await search(api, "tomatoes spice"), []);
});

Deno.test("GET /chats/search finds nothing of another user's chats", async () => {
  await using api = await testApi();
  await chatWith(api, "Bakery", ["What spice is in the winter loaf?"]);
  await api.as("bob");
  assert.deepEqual(await search(api, "winter"), []);
});

Deno.test("GET /chats/search refuses a missing, blank or too long q in a sentence", async () => {
  await using api = await testApi();
  for (const query of ["", "?q=", "?q=%20%20", `?q=${"a".repeat(201)}`]) {
    const response = await api.call("GET", `/chats/search${query}`);
    assert.equal(response.status, 422, query);
    const { error } = await response.json();
    assert.match(error.message, /^The query parameter "q" must be 1 to 200 characters, not "/);
  }
});
