import assert from "node:assert/strict";
import { type TestApi, testApi } from "./_api.ts";

type Message = {
  id: string;
  role: string;
  content: string;
  feedback?: { rating: string; note?: string; timestamp: string };
  versions?: Message[];
};

async function preparedChat(api: TestApi): Promise<string> {
  const { document } = await api.upload("a.md", "# Apples\n\nApples are red.\n");
  const chat = await (await api.call("POST", "/chats", {
    name: "versions",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [document],
  })).json();
  await api.call("POST", `/chats/${chat.id}/prepare`);
  return chat.id;
}

async function messages(api: TestApi, chatId: string): Promise<Message[]> {
  return (await (await api.call("GET", `/chats/${chatId}`)).json()).messages;
}

Deno.test("POST /chats/{id}/regenerate keeps the earlier answers as versions of the latest", async () => {
  await using api = await testApi();
  const chatId = await preparedChat(api);
  const first = await (await api.call("POST", `/chats/${chatId}/answer`, { prompt: "Red?" }))
    .json();
  const second = await (await api.call("POST", `/chats/${chatId}/regenerate`, {})).json();
  const third = (await (await api.call("POST", `/chats/${chatId}/regenerate`, { stream: true }))
    .text()).split("\n").filter(Boolean).map((line) => JSON.parse(line))[0];
  const listed = await messages(api, chatId);
  assert.deepEqual(listed.map((m) => m.role), ["system", "user", "assistant"]);
  const answer = listed[2]!;
  assert.equal(answer.id, third.id, "the latest is the message");
  assert.deepEqual(answer.versions!.map((v) => v.id), [first.id, second.id, third.id]);
  assert.deepEqual(answer.versions![0], first, "an earlier answer as it was given");
});

Deno.test("POST /chats/{id}/messages/{message_id}/edit asks a question again in a new branch; the old one is kept and read with /branch", async () => {
  await using api = await testApi();
  const chatId = await preparedChat(api);
  const ask = async (prompt: string) =>
    await (await api.call("POST", `/chats/${chatId}/answer`, { prompt })).json();
  await ask("First?");
  await ask("Second?");
  await ask("Third?");
  const before = await messages(api, chatId);
  const second = before[3]!;

  const edited = await api.call("POST", `/chats/${chatId}/messages/${second.id}/edit`, {
    prompt: "Second, reworded?",
    stream: true,
  });
  assert.equal(edited.status, 200);
  const [head] = (await edited.text()).split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const after = await messages(api, chatId);
  assert.deepEqual(after.map((m) => m.content).slice(1, 4), [
    "First?",
    before[2]!.content,
    "Second, reworded?",
  ]);
  assert.equal(after.length, 5, "the third question left with the branch");
  assert.equal(after[4]!.id, head.id);
  assert.deepEqual(after[3]!.versions!.map((v) => v.content), ["Second?", "Second, reworded?"]);

  const branch = await (await api.call("GET", `/chats/${chatId}/messages/${second.id}/branch`))
    .json();
  assert.deepEqual(
    branch.map((m: Message) => m.id),
    before.slice(3).map((m) => m.id),
    "the branch the edit replaced, as it was",
  );

  const refused = await api.call("POST", `/chats/${chatId}/messages/${before[4]!.id}/edit`, {
    prompt: "An answer?",
  });
  assert.equal(refused.status, 400);
  assert.match((await refused.json()).error.message, /Only a question can be edited/);
  const gone = await api.call("POST", `/chats/${chatId}/messages/${before[5]!.id}/edit`, {
    prompt: "Out of the conversation?",
  });
  assert.equal(gone.status, 400);
  assert.equal((await messages(api, chatId)).length, 5, "a refused edit asks nothing");
  await api.as("bob");
  const theirs = await api.call("POST", `/chats/${chatId}/messages/${second.id}/edit`, {
    prompt: "Mine?",
  });
  assert.equal(theirs.status, 404);
});

Deno.test("POST /chats/{id}/messages/{message_id}/feedback rates an answer with a note, and takes it back", async () => {
  await using api = await testApi();
  const chatId = await preparedChat(api);
  const answer = await (await api.call("POST", `/chats/${chatId}/answer`, { prompt: "Red?" }))
    .json();
  const path = `/chats/${chatId}/messages/${answer.id}/feedback`;
  const rated = await (await api.call("POST", path, { rating: "good", note: "  Spot on " })).json();
  assert.equal(rated.id, answer.id);
  assert.deepEqual([rated.feedback.rating, rated.feedback.note], ["good", "Spot on"]);
  assert.ok(!Number.isNaN(Date.parse(rated.feedback.timestamp)));
  assert.deepEqual((await messages(api, chatId))[2]!.feedback, rated.feedback);

  const cleared = await (await api.call("POST", path, { rating: null })).json();
  assert.equal(cleared.feedback, undefined);

  const question = (await messages(api, chatId))[1]!;
  const onQuestion = await api.call("POST", `/chats/${chatId}/messages/${question.id}/feedback`, {
    rating: "bad",
  });
  assert.equal(onQuestion.status, 400);
  const invalid = await api.call("POST", path, { rating: "great" });
  assert.equal(invalid.status, 422);
  assert.match((await invalid.json()).error.message, /rating/);
  await api.as("bob");
  assert.equal((await api.call("POST", path, { rating: "bad" })).status, 404);
});
