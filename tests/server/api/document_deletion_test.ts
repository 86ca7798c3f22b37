import assert from "node:assert/strict";
import { join } from "node:path";
import { testApi } from "./_api.ts";

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

Deno.test("DELETE /documents/{id} removes a document no chat uses, with its file", async () => {
  await using api = await testApi();
  const { document } = await api.upload("notes.md", "# Notes\n\nKept for a while.");
  const file = join(api.deps.localRoot, "documents", document.id);
  assert.ok(await exists(file));

  const response = await api.call("DELETE", `/documents/${document.id}`);
  assert.equal(response.status, 200);
  assert.equal(await response.json(), null);
  assert.equal(await exists(file), false);
  assert.equal(await api.deps.database.storageUsed("ada"), 0);
  // Gone for a chat as for a second deletion.
  const chat = await api.call("POST", "/chats", {
    name: "after",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [document],
  });
  assert.equal(chat.status, 404);
  const again = await api.call("DELETE", `/documents/${document.id}`);
  assert.equal(again.status, 404);
  assert.deepEqual(await again.json(), { error: { message: `No document "${document.id}"` } });
});

Deno.test("DELETE /documents/{id} answers 404 for another user's document and leaves it", async () => {
  await using api = await testApi();
  const { document } = await api.upload("notes.md", "# Notes");
  await api.as("bob");
  const response = await api.call("DELETE", `/documents/${document.id}`);
  assert.equal(response.status, 404);
  assert.deepEqual(await response.json(), { error: { message: `No document "${document.id}"` } });
  assert.ok(await exists(join(api.deps.localRoot, "documents", document.id)));
  assert.equal((await api.deps.database.getDocument("ada", document.id)).name, "notes.md");
});

Deno.test("DELETE /documents/{id} answers 409 naming the chat that uses the document, until it is deleted", async () => {
  await using api = await testApi();
  const { document } = await api.upload("notes.md", "# Notes");
  const created = await api.call("POST", "/chats", {
    name: "Reading notes",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [document],
  });
  const chat = await created.json();

  const refused = await api.call("DELETE", `/documents/${document.id}`);
  assert.equal(refused.status, 409);
  assert.deepEqual(await refused.json(), {
    error: {
      message:
        'Cannot delete the document "notes.md": the chat "Reading notes" uses it; delete it first',
    },
  });
  assert.ok(await exists(join(api.deps.localRoot, "documents", document.id)));

  assert.equal((await api.call("DELETE", `/chats/${chat.id}`)).status, 200);
  assert.equal((await api.call("DELETE", `/documents/${document.id}`)).status, 200);
});

Deno.test("DELETE /documents/{id} gives the document's bytes back to the storage quota", async () => {
  await using api = await testApi({ maxStoragePerUser: 1000 });
  const first = await api.upload("first.md", "a".repeat(800));
  assert.equal(first.response.status, 200);
  const refused = await api.upload("second.md", "b".repeat(800));
  assert.equal(refused.response.status, 413);
  assert.equal((await api.call("DELETE", `/documents/${first.document.id}`)).status, 200);
  const second = await api.upload("second.md", "b".repeat(800));
  assert.equal(second.response.status, 200);
  assert.equal(await api.deps.database.storageUsed("ada"), 800);
});
