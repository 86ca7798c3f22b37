/**
 * The changes to a chat after it was made, through the REST API: renaming it,
 * its title from the first question, documents added to it, and its last
 * answer written again.
 * @module
 */
import assert from "node:assert/strict";
import { Assistant } from "../../../components/core/component.ts";
import { SvcDemoSourceStorage } from "../../../components/source_storages/demo.ts";
import { LibSQL } from "../../../components/source_storages/libsql.ts";
import { tmpLocalRoot } from "../../test_utils.ts";
import { type TestApi, testApi } from "./_api.ts";

type Message = {
  id: string;
  role: string;
  content: string;
  sources: { document: { name: string } }[];
};

async function preparedChat(api: TestApi, name = "Chat", source_storage = "Svc/DemoSourceStorage") {
  const { document } = await api.upload("a.md", "# Apples\n\nApples are red.\n");
  const chat = await (await api.call("POST", "/chats", {
    name,
    source_storage,
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [document],
  })).json();
  assert.equal((await api.call("POST", `/chats/${chat.id}/prepare`)).status, 200);
  return chat;
}

async function ask(api: TestApi, chatId: string, prompt: string): Promise<Message> {
  const response = await api.call("POST", `/chats/${chatId}/answer`, { prompt });
  assert.equal(response.status, 200);
  return await response.json();
}

Deno.test("PATCH /chats/{id} renames the chat; an empty name is refused", async () => {
  await using api = await testApi();
  const chat = await preparedChat(api);
  const renamed = await api.call("PATCH", `/chats/${chat.id}`, { name: "  Fruit facts " });
  assert.equal(renamed.status, 200);
  assert.equal((await renamed.json()).metadata.name, "Fruit facts");
  const listed = await (await api.call("GET", "/chats?messages=false")).json();
  assert.equal(listed[0].metadata.name, "Fruit facts");
  const empty = await api.call("PATCH", `/chats/${chat.id}`, { name: " " });
  assert.equal(empty.status, 422);
  assert.match((await empty.json()).error.message, /name/);
  await api.as("bob");
  assert.equal((await api.call("PATCH", `/chats/${chat.id}`, { name: "Mine" })).status, 404);
});

Deno.test("a chat made without a name takes a short title from its first question, and keeps it", async () => {
  await using api = await testApi();
  const chat = await preparedChat(api, "");
  await ask(
    api,
    chat.id,
    "  What colour\nare the apples in this long report about fruit and trees?",
  );
  await ask(api, chat.id, "And the pears?");
  const stored = await (await api.call("GET", `/chats/${chat.id}`)).json();
  assert.equal(stored.metadata.name, "What colour are the apples in this long report…");
  // A chat with a name keeps it.
  const named = await preparedChat(api, "Mine");
  await ask(api, named.id, "What colour are the apples?");
  assert.equal((await (await api.call("GET", `/chats/${named.id}`)).json()).metadata.name, "Mine");
});

Deno.test("POST /chats/{id}/documents adds documents, indexing only the new ones with progress", async () => {
  await using _root = await tmpLocalRoot();
  await using api = await testApi({ sourceStorages: [new LibSQL()] });
  const chat = await preparedChat(api, "Chat", "LibSQL");
  const { document: pears } = await api.upload("pears.txt", "Pears are green and sweet.");
  const response = await api.call("POST", `/chats/${chat.id}/documents`, {
    documents: [pears],
  }, { accept: "application/x-ndjson" });
  assert.equal(response.status, 200);
  const lines = (await response.text()).split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const steps = lines.slice(0, -1).map((line) => line.progress);
  // Only the new document is read and indexed.
  assert.deepEqual(new Set(steps.map((step) => step.document.name)), new Set(["pears.txt"]));
  assert.deepEqual(steps.map((step) => step.stage), ["reading", "parsed", "indexed"]);
  const updated = lines.at(-1);
  assert.deepEqual(updated.metadata.documents.map((d: { name: string }) => d.name), [
    "a.md",
    "pears.txt",
  ]);
  const answer = await ask(api, chat.id, "Which pears are sweet?");
  assert.ok(answer.sources.some((source) => source.document.name === "pears.txt"));

  // A document the chat has already is refused, and nothing changes.
  const again = await api.call("POST", `/chats/${chat.id}/documents`, { documents: [pears] });
  assert.equal(again.status, 409);
  assert.match((await again.json()).error.message, /pears\.txt/);
  const stored = await (await api.call("GET", `/chats/${chat.id}`)).json();
  assert.equal(stored.metadata.documents.length, 2);
});

Deno.test("POST /chats/{id}/documents to a chat not prepared adds them, prepared with the others later", async () => {
  await using api = await testApi({ sourceStorages: [new SvcDemoSourceStorage()] });
  const { document: a } = await api.upload("a.md", "# A\n");
  const { document: b } = await api.upload("b.md", "# B\n");
  const chat = await (await api.call("POST", "/chats", {
    name: "Chat",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [a],
  })).json();
  const added = await api.call("POST", `/chats/${chat.id}/documents`, { documents: [b] });
  assert.equal(added.status, 200);
  assert.equal((await added.json()).prepared, false);
  await api.call("POST", `/chats/${chat.id}/prepare`);
  const answer = await ask(api, chat.id, "Anything?");
  assert.deepEqual(answer.sources.map((s) => s.document.name).sort(), ["a.md", "b.md"]);
});

Deno.test("POST /chats/{id}/regenerate answers the last question again, in place of its answer", async () => {
  await using api = await testApi();
  const chat = await preparedChat(api);
  await ask(api, chat.id, "First?");
  const old = await ask(api, chat.id, "Second?");
  const response = await api.call("POST", `/chats/${chat.id}/regenerate`, { stream: true });
  assert.equal(response.status, 200);
  const lines = (await response.text()).split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const fresh = lines[0];
  assert.notEqual(fresh.id, old.id);
  const stored = await (await api.call("GET", `/chats/${chat.id}`)).json();
  assert.deepEqual(
    stored.messages.map((m: Message) => m.role),
    ["system", "user", "assistant", "user", "assistant"],
  );
  assert.equal(stored.messages[3].content, "Second?");
  assert.equal(stored.messages[4].id, fresh.id);

  // A chat with no question has nothing to answer again.
  const empty = await preparedChat(api);
  const refused = await api.call("POST", `/chats/${empty.id}/regenerate`, {});
  assert.equal(refused.status, 400);
  assert.match((await refused.json()).error.message, /no question/);
});

/** Answers each prompt once the test lets it: `started` says which prompts it holds. */
class Gated extends Assistant {
  static override displayName = "Test/Gated";
  readonly started = new Map<string, PromiseWithResolvers<void>>();
  readonly gates = new Map<string, PromiseWithResolvers<void>>();
  /** Resolves once the answer to `prompt` has begun (its question is stored by then). */
  begun(prompt: string): Promise<void> {
    return this.#entry(this.started, prompt).promise;
  }
  /** Lets the answer to `prompt` go. */
  release(prompt: string): void {
    this.#entry(this.gates, prompt).resolve();
  }
  override async *answer(prompt: string): AsyncGenerator<string> {
    this.#entry(this.started, prompt).resolve();
    await this.#entry(this.gates, prompt).promise;
    yield `Answer to ${prompt}`;
  }
  #entry(map: Map<string, PromiseWithResolvers<void>>, prompt: string) {
    if (!map.has(prompt)) map.set(prompt, Promise.withResolvers<void>());
    return map.get(prompt)!;
  }
}

Deno.test("POST /chats/{id}/regenerate with two answers in flight keeps the other question's answer", async () => {
  const gated = new Gated();
  await using api = await testApi({ assistants: [gated] });
  const { document } = await api.upload("a.md", "# Apples\n\nApples are red.\n");
  const chat = await (await api.call("POST", "/chats", {
    name: "two at once",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Test/Gated",
    params: {},
    documents: [document],
  })).json();
  await api.call("POST", `/chats/${chat.id}/prepare`);
  const streamed = async (response: Promise<Response>) =>
    (await (await response).text()).split("\n").filter(Boolean).map((l) => JSON.parse(l));

  // Asked one after the other; the second is answered first.
  const first = api.call("POST", `/chats/${chat.id}/answer`, { prompt: "First?", stream: true });
  await gated.begun("First?");
  const second = api.call("POST", `/chats/${chat.id}/answer`, { prompt: "Second?", stream: true });
  await gated.begun("Second?");
  gated.release("Second?");
  await streamed(second);
  gated.release("First?");
  const [a1] = await streamed(first);

  gated.release("Second?");
  const [again] = await streamed(
    api.call("POST", `/chats/${chat.id}/regenerate`, { stream: true }),
  );
  const stored = await (await api.call("GET", `/chats/${chat.id}`)).json();
  assert.deepEqual(stored.messages.map((m: Message) => [m.role, m.content]), [
    ["system", "How can I help you with the documents?"],
    ["user", "First?"],
    ["assistant", "Answer to First?"],
    ["user", "Second?"],
    ["assistant", "Answer to Second?"],
  ]);
  assert.equal(stored.messages[2].id, a1.id, "the first answer, which its client read whole");
  assert.equal(stored.messages[4].id, again.id);
});
