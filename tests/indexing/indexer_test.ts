import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import type { PrepareProgress } from "../../components/core/progress.ts";
import { HashEmbedder } from "../../components/embeddings/hash.ts";
import { Indexer, type IndexOptions } from "../../components/indexing/mod.ts";
import { LibSQLBackend } from "../../components/source_storages/_libsql_backend.ts";
import { chatParams, copiedFixture } from "../source_storages/_helpers.ts";
import { tmpDir } from "../test_utils.ts";

/** An in-memory LibSQL backend, closed when disposed. */
async function memoryBackend(): Promise<LibSQLBackend & Disposable> {
  const client = createClient({ url: ":memory:" });
  const backend = await LibSQLBackend.open(client);
  return Object.assign(backend, { [Symbol.dispose]: () => client.close() });
}

function options(chatId: string, steps: string[], shared = false): IndexOptions {
  return {
    params: {
      ...chatParams(chatId),
      progress: (step: PrepareProgress) => steps.push(`${chatId} ${step.stage}`),
    },
    chunkSize: 40,
    chunkOverlap: 10,
    embedder: () => new HashEmbedder(),
    shared,
    storage: "LibSQL",
  };
}

Deno.test("Indexer indexes a document that two chats store at once once, and links both chats to it", async () => {
  await using folder = await tmpDir();
  using backend = await memoryBackend();
  const report = await copiedFixture(folder.path, "report.pdf");
  const steps: string[] = [];
  const indexer = new Indexer();
  await Promise.all([
    indexer.store(backend, [report], options("first", steps)),
    indexer.store(backend, [report], options("second", steps)),
  ]);
  assert.equal(steps.filter((step) => step.endsWith("parsed")).length, 1, steps.join(", "));
  const [first, second] = await Promise.all(["first", "second"].map((chat) => backend.links(chat)));
  assert.equal(first!.get(report.id)!.key, second!.get(report.id)!.key);
  assert.equal(first!.get(report.id)!.chunkSize, 40);
});

Deno.test("Indexer keeps each user's index of the same bytes apart, unless told they share", async () => {
  await using folder = await tmpDir();
  using backend = await memoryBackend();
  const report = await copiedFixture(folder.path, "report.pdf");
  const indexer = new Indexer();
  const steps: string[] = [];
  const keyOf = async (chatId: string, user: string, shared: boolean) => {
    const told = options(chatId, steps, shared);
    await indexer.store(backend, [report], { ...told, params: { ...told.params, user } });
    return (await backend.links(chatId)).get(report.id)!.key;
  };
  const ada = await keyOf("ada", "ada", false);
  assert.notEqual(await keyOf("bob", "bob", false), ada);
  const shared = await keyOf("shared-ada", "ada", true);
  assert.equal(await keyOf("shared-bob", "bob", true), shared);
  assert.notEqual(shared, ada);
});
