import assert from "node:assert/strict";
import { LocalDocument } from "../../components/core/document.ts";
import type { ChatParams } from "../../components/core/params.ts";
import { SvcDemoSourceStorage } from "../../components/source_storages/demo.ts";
import { FIXTURES, tmpDir, writeFile } from "../test_utils.ts";

const params = (chat_id: string): ChatParams => ({
  user: "ada",
  chat_id,
  chat_name: "Chat",
  signal: new AbortController().signal,
});

Deno.test("SvcDemoSourceStorage gives one shortened source per document", async () => {
  await using dir = await tmpDir();
  const long = await writeFile(dir.path, "long.md", "lorem ipsum ".repeat(30));
  const short = await writeFile(dir.path, "short.txt", "Just this.\n");
  const documents = [LocalDocument.fromPath(long), LocalDocument.fromPath(short)];
  const storage = new SvcDemoSourceStorage();
  await storage.store(documents, params("chat-1"));
  const sources = await storage.retrieve(documents, "ignored", params("chat-1"));
  assert.deepEqual(sources.map((s) => s.document.name), ["long.md", "short.txt"]);
  assert.ok(sources[0]!.content.length <= 100 && sources[0]!.content.endsWith(" [...]"));
  assert.equal(sources[1]!.content, "Just this.");
  assert.equal(sources[1]!.numTokens, 2);
  assert.deepEqual(sources.map((s) => s.location), ["", ""]);
});

Deno.test("SvcDemoSourceStorage names the first page of a paged document", async () => {
  const document = LocalDocument.fromPath(`${FIXTURES}report.pdf`);
  const storage = new SvcDemoSourceStorage();
  const [source] = await storage.retrieve([document], "?", params("chat-2"));
  assert.equal(source?.location, "page 1");
});

Deno.test("SvcDemoSourceStorage answers after a restart with the same sources", async () => {
  await using dir = await tmpDir();
  const path = await writeFile(dir.path, "a.txt", "Alpha.\n");
  const document = LocalDocument.fromPath(path, { id: "doc-1" });
  const before = new SvcDemoSourceStorage();
  await before.store([document], params("chat-3"));
  const stored = await before.retrieve([document], "?", params("chat-3"));
  const after = new SvcDemoSourceStorage();
  assert.deepEqual(await after.retrieve([document], "?", params("chat-3")), stored);
  const other = await after.retrieve([document], "?", params("chat-4"));
  assert.notEqual(other[0]!.id, stored[0]!.id, "ids differ between chats");
});
