import assert from "node:assert/strict";
import { ChromaClient } from "npm:chromadb@3.5.0";
import { LocalDocument } from "../../components/core/document.ts";
import { SvcError } from "../../components/core/errors.ts";
import { Chroma } from "../../components/source_storages/chroma.ts";
import { tmpLocalRoot } from "../test_utils.ts";
import { startChroma } from "./_chroma.ts";
import { chatParams, copiedFixture } from "./_helpers.ts";
import { integration } from "../_tier.ts";

/** The server's collections, with the number of records of each. */
async function collections(url: string): Promise<Record<string, number>> {
  const { hostname, port } = new URL(url);
  const client = new ChromaClient({ host: hostname, port: Number(port), ssl: false });
  const counted: Record<string, number> = {};
  for (const collection of await client.listCollections()) {
    counted[collection.name] = await collection.count();
  }
  return counted;
}

integration.test("Chroma indexes a document once for every chat, and removes it with the last", async () => {
  await using root = await tmpLocalRoot();
  await using server = await startChroma();
  const report = await copiedFixture(root.path, "report.pdf");
  const same = LocalDocument.fromPath(report.path, { id: "another-upload-of-the-same-file" });
  const storage = new Chroma({ url: server.url });
  await Promise.all([
    storage.store([report], chatParams("first")),
    storage.store([same], chatParams("second")),
  ]);
  await storage.store([report], chatParams("third"));
  const stored = await collections(server.url);
  const indexes = Object.keys(stored).filter((name) => name !== "svc-links");
  assert.equal(indexes.length, 1);
  assert.ok(stored[indexes[0]!]! > 0);
  assert.equal(stored["svc-links"], 3);

  await storage.delete(chatParams("first"));
  await storage.delete(chatParams("second"));
  assert.deepEqual(await collections(server.url), { ...stored, "svc-links": 1 });
  await storage.delete(chatParams("third"));
  assert.deepEqual(await collections(server.url), { "svc-links": 0 });
});

integration.test("Chroma keeps a chat's data across a restart of the server and of svc", async () => {
  await using root = await tmpLocalRoot();
  await using server = await startChroma();
  const report = await copiedFixture(root.path, "report.pdf");
  const params = chatParams("restart", { chunk_size: 32, chunk_overlap: 16 });
  const prompt = "What is the secret ingredient of the winter loaf?";
  const before = await new Chroma({ url: server.url }).retrieve([report], prompt, params);
  await server.restart();
  await Deno.remove(report.path);
  // Another URL for the same server: a storage that has seen nothing of it, as after a restart.
  const fresh = new Chroma({ url: server.url.replace("127.0.0.1", "localhost") });
  const after = await fresh.retrieve([report], prompt, params);
  const withoutDocument = ({ document: _, ...rest }: { document: unknown }) => rest;
  assert.deepEqual(after.map(withoutDocument), before.map(withoutDocument));
  assert.ok(after.some((source) => /cardamom/.test(source.content)));
});

Deno.test("Chroma says when its server does not answer", async () => {
  await using root = await tmpLocalRoot();
  const guide = await copiedFixture(root.path, "guide.md");
  const storage = new Chroma({ url: "http://127.0.0.1:9" });
  await assert.rejects(
    async () => await storage.retrieve([guide], "start", chatParams("x")),
    (error) =>
      error instanceof SvcError && error.status === 503 &&
      error.message.startsWith(`Cannot use the Chroma server "http://127.0.0.1:9": `),
  );
});

Deno.test("Chroma names its server without the password and key of its URL", async () => {
  await using root = await tmpLocalRoot();
  const guide = await copiedFixture(root.path, "guide.md");
  const storage = new Chroma({ url: "http://ada:hunter2@127.0.0.1:9/?key=secret#secret" });
  await assert.rejects(
    async () => await storage.retrieve([guide], "start", chatParams("x")),
    (error) => {
      assert.ok(error instanceof SvcError && error.status === 503);
      assert.ok(error.message.startsWith(`Cannot use the Chroma server "http://127.0.0.1:9/": `));
      assert.ok(!/hunter2|secret|ada:/.test(error.message), error.message);
      return true;
    },
  );
});

integration.test("Chroma requires its package and its server, at SVC_CHROMA_URL", async () => {
  const [pkg, server] = Chroma.requirements;
  assert.equal(pkg!.name, "chromadb");
  assert.equal(await pkg!.isAvailable(), true);
  {
    await using started = await startChroma();
    // The only test that names the server through the environment, as svc check does.
    Deno.env.set("SVC_CHROMA_URL", started.url);
    try {
      const [, running] = Chroma.requirements;
      assert.equal(running!.name, `Chroma at "${started.url}"`);
      assert.equal(await running!.isAvailable(), true);
    } finally {
      Deno.env.delete("SVC_CHROMA_URL");
    }
  }
  Deno.env.set("SVC_CHROMA_URL", "http://127.0.0.1:9/");
  try {
    const [, gone] = Chroma.requirements;
    assert.equal(gone!.name, `Chroma at "http://127.0.0.1:9"`);
    assert.equal(await gone!.isAvailable(), false);
  } finally {
    Deno.env.delete("SVC_CHROMA_URL");
  }
  assert.ok(server!.name.startsWith("Chroma at "));
});
