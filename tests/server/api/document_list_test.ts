import assert from "node:assert/strict";
import { testApi } from "./_api.ts";

type Listed = { id: string; name: string; size: number; pages: number | null; chats: string[] };

Deno.test("GET /documents lists only the user's own documents, newest first, with size, pages once read and the chats that use each; a deleted one leaves the list", async () => {
  await using api = await testApi();
  const { document: first } = await api.upload("first.md", "# First\n\nOne.\n");
  const { document: second } = await api.upload("second.md", "# Second\n\nTwo, longer.\n");
  const list = async (): Promise<Listed[]> => await (await api.call("GET", "/documents")).json();
  assert.deepEqual(await list(), [
    { id: second.id, name: "second.md", size: 23, pages: null, chats: [] },
    { id: first.id, name: "first.md", size: 14, pages: null, chats: [] },
  ]);
  // A registration whose file never came is not a document yet.
  await api.call("POST", "/document", { name: "pending.md" });
  assert.equal((await list()).length, 2);

  // A chat made of documents uploaded before, prepared: they are read and used.
  const chat = await (await api.call("POST", "/chats", {
    name: "both",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [first, second],
  })).json();
  assert.equal((await api.call("POST", `/chats/${chat.id}/prepare`)).status, 200);
  assert.deepEqual(
    (await list()).map((d) => [d.name, d.pages, d.chats]),
    [["second.md", 1, [chat.id]], ["first.md", 1, [chat.id]]],
  );

  // Another chat from a document of the first, with no upload: it answers from it.
  const reused = await (await api.call("POST", "/chats", {
    name: "again",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [first],
  })).json();
  assert.equal((await api.call("POST", `/chats/${reused.id}/prepare`)).status, 200);
  const reply = await (await api.call("POST", `/chats/${reused.id}/answer`, { prompt: "One?" }))
    .json();
  assert.deepEqual(reply.sources.map((s: { document: { id: string } }) => s.document.id), [
    first.id,
  ]);
  assert.deepEqual((await list()).map((d) => d.chats), [[chat.id], [chat.id, reused.id]]);
  assert.equal((await list()).length, 2, "no document was added");

  await api.as("bob");
  assert.deepEqual(await list(), []);
  assert.equal((await api.call("DELETE", `/chats/${chat.id}/documents/${first.id}`)).status, 404);
  await api.as("ada");

  // Taken out of the chat, the document no longer serves it and can be deleted.
  const removed = await api.call("DELETE", `/chats/${chat.id}/documents/${second.id}`);
  assert.equal(removed.status, 200);
  assert.deepEqual((await removed.json()).metadata.documents, [{ id: first.id, name: "first.md" }]);
  const again = await api.call("DELETE", `/chats/${chat.id}/documents/${second.id}`);
  assert.equal(again.status, 404);
  assert.deepEqual(await again.json(), {
    error: { message: `The chat "${chat.id}" has no document "${second.id}"` },
  });
  assert.deepEqual((await list())[0]!.chats, []);
  assert.equal((await api.call("DELETE", `/documents/${second.id}`)).status, 200);
  assert.deepEqual((await list()).map((d) => d.id), [first.id]);
  const answered = await (await api.call("POST", `/chats/${chat.id}/answer`, { prompt: "Which?" }))
    .json();
  assert.deepEqual(
    answered.sources.map((s: { document: { id: string } }) => s.document.id),
    [first.id],
    "the chat answers from the documents it has",
  );
});
