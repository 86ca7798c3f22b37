import assert from "node:assert/strict";
import * as lancedb from "npm:@lancedb/lancedb@0.31.0";
import * as arrow from "npm:apache-arrow@18.1.0";
import { LocalDocument } from "../../components/core/document.ts";
import { SvcError } from "../../components/core/errors.ts";
import { HashEmbedder } from "../../components/embeddings/hash.ts";
import { LanceDB } from "../../components/source_storages/lancedb.ts";
import { LanceDBBackend } from "../../components/source_storages/_lancedb_backend.ts";
import { smallDisk } from "../_disk.ts";
import { tmpLocalRoot, writeFile } from "../test_utils.ts";
import {
  chatParams,
  copiedFixture,
  linkedKeys,
  randomIndex,
  searchQuery,
  storedFixtures,
} from "./_helpers.ts";
import { assertTextArmKeepsToChat, assertVectorArmExact } from "./_arms.ts";
import { slow } from "../_tier.ts";

/** Row counts of the storage's tables in the local root's LanceDB folder. */
async function counts(root: string): Promise<Record<string, number>> {
  const db = await lancedb.connect(`${root}/lancedb`);
  const counted: Record<string, number> = {};
  for (const name of await db.tableNames()) {
    counted[name] = await (await db.openTable(name)).countRows();
  }
  db.close();
  return counted;
}

Deno.test("LanceDB indexes a document once for every chat, and removes it with the last", async () => {
  await using root = await tmpLocalRoot();
  const report = await copiedFixture(root.path, "report.pdf");
  const same = LocalDocument.fromPath(report.path, { id: "another-upload-of-the-same-file" });
  const storage = new LanceDB();
  await Promise.all([
    storage.store([report], chatParams("first")),
    storage.store([same], chatParams("second")),
  ]);
  await storage.store([report], chatParams("third"));
  const stored = await counts(root.path);
  assert.equal(stored.indexes, 1);
  assert.equal(stored.links, 3);
  assert.ok(stored.chunks_512! > 0);

  await storage.delete(chatParams("first"));
  await storage.delete(chatParams("second"));
  assert.deepEqual(await counts(root.path), { ...stored, links: 1 });
  await storage.delete(chatParams("third"));
  assert.deepEqual(await counts(root.path), { chunks_512: 0, indexes: 0, links: 0, postings: 0 });
});

Deno.test("LanceDB indexes anew for another embedder, and drops the index no one uses", async () => {
  await using root = await tmpLocalRoot();
  const guide = await copiedFixture(root.path, "guide.md");
  const params = chatParams("chat", { chunk_size: 8, chunk_overlap: 2 });
  await new LanceDB().store([guide], params);
  const other = new LanceDB({ embedder: new HashEmbedder({ dimension: 64 }) });
  const sources = await other.retrieve([guide], "Ctrl+C", params);
  assert.match(sources[0]!.content, /Ctrl/);
  const stored = await counts(root.path);
  assert.equal(stored.links, 1, "the document's link replaced, not added beside it");
  assert.equal(stored.indexes, 1);
  assert.equal(stored.chunks_512, 0);
  assert.ok(stored.chunks_64! > 0);
});

Deno.test("LanceDB takes any text as a query, and ids with quotes", async () => {
  await using root = await tmpLocalRoot();
  const guide = await copiedFixture(root.path, "guide.md");
  const params = chatParams(`it's "quoted" -- ; DROP`, { chunk_size: 16, chunk_overlap: 4 });
  const storage = new LanceDB();
  for (const prompt of [`"svc api" AND (start OR`, "?!", `${"w ".repeat(500)}start`]) {
    const sources = await storage.retrieve([guide], prompt, params);
    assert.ok(sources.length > 0, prompt);
  }
  await storage.delete(params);
  assert.equal((await counts(root.path)).links, 0);
});

Deno.test("LanceDB refuses an unreadable document by name and stores nothing of it", async () => {
  await using root = await tmpLocalRoot();
  const fake = LocalDocument.fromPath(await writeFile(root.path, "fake.pdf", "Not a PDF."));
  const guide = await copiedFixture(root.path, "guide.md");
  const error = await new LanceDB().store([guide, fake], chatParams("bad")).catch((e) => e);
  assert.ok(error instanceof SvcError && error.status === 422, String(error));
  assert.match(error.message, /^Cannot read "fake\.pdf": /);
  const stored = await counts(root.path);
  assert.equal(stored.indexes, 1);
  assert.equal(stored.links, 1);
});

Deno.test("LanceDB says when it cannot open its folder", async () => {
  await using root = await tmpLocalRoot();
  const guide = await copiedFixture(root.path, "guide.md");
  const path = await writeFile(root.path, "not-a-folder", "");
  await assert.rejects(
    async () => await new LanceDB({ path }).retrieve([guide], "start", chatParams("x")),
    (error) =>
      error instanceof SvcError && error.status === 503 &&
      error.message.startsWith(`Cannot open the LanceDB folder "${path}": `),
  );
});

Deno.test("LanceDB's vector arm ranks as an exact scan of the chat's stored vectors", async () => {
  await using root = await tmpLocalRoot();
  const words = (seed: string) =>
    Array.from({ length: 2000 }, (_, i) => `${seed}word${i % 997}`).join(" ");
  const documents = await Promise.all(
    ["a", "b"].map(async (seed) =>
      LocalDocument.fromPath(await writeFile(root.path, `${seed}.txt`, words(seed)), { id: seed })
    ),
  );
  const params = chatParams("vectors", { chunk_size: 8, chunk_overlap: 0 });
  const storage = new LanceDB();
  await storage.store(documents, params);
  const db = await lancedb.connect(`${root.path}/lancedb`);
  const rows = await (await db.openTable("chunks_512")).query()
    .select(["key", "ordinal", "vector"]).toArray();
  db.close();
  assert.ok(rows.length > 1000, `${rows.length} chunks`);
  // Ties in the order of the chunks: by key, then ordinal.
  const byPlace = [...rows].sort((a, b) =>
    String(a.key).localeCompare(String(b.key)) || a.ordinal - b.ordinal
  );
  const stored = byPlace.map((row, tie) => ({
    id: `${String(row.key).slice(0, 32)}-${row.ordinal}`,
    tie,
    vector: row.vector.toArray() as Float32Array,
  }));
  for (const question of ["aword12 aword7", "bword3 bword900 bword41", "nothing at all"]) {
    await assertVectorArmExact(storage, { documents, params }, question, stored);
  }
});

Deno.test("LanceDB ranks full text over the chat's documents only: words of other users' documents weigh nothing", async () => {
  await using root = await tmpLocalRoot();
  await assertTextArmKeepsToChat(root.path, new LanceDB());
});

Deno.test("LanceDB searches the same with too little memory to keep the passages: it reads them again", async () => {
  await using root = await tmpLocalRoot();
  await storedFixtures(root.path, new LanceDB(), "small");
  const modules = { lancedb, arrow };
  const roomy = await LanceDBBackend.open(`${root.path}/lancedb`, modules);
  const keys = await linkedKeys(roomy, "small");
  const query = searchQuery("secret ingredient of the winter loaf");
  const found = await roomy.search(keys, query);
  assert.ok(found[0]!.length > 0 && found[1]!.length > 0);
  assert.deepEqual(await roomy.search(keys, query), found);
  const reading = await LanceDBBackend.open(`${root.path}/lancedb`, modules, { passageMemory: 1 });
  assert.deepEqual(await reading.search(keys, query), found);
  assert.deepEqual(await reading.search(keys, query), found);

  // The passages are read by the row ids read with them; rewritten by a compaction, under new ids,
  // they are found by key and ordinal instead, and by their new ids after.
  const written = async () => {
    const db = await lancedb.connect(`${root.path}/lancedb`);
    const table = await db.openTable("chunks_512");
    // A row written and removed leaves a file for the compaction to rewrite with the others.
    const row = { key: "other", ordinal: 0, text: "", page_numbers: "[]", num_tokens: 0 };
    await table.add([{ ...row, vector: new Float32Array(512) }]);
    await table.delete(`key = 'other'`);
    await table.optimize({ cleanupOlderThan: new Date() });
    db.close();
  };
  const ids = async () =>
    (await (await lancedb.connect(`${root.path}/lancedb`)).openTable("chunks_512")).query()
      .select(["key"]).withRowId().toArray().then((rows) => rows.map((row) => row._rowid));
  const before = await ids();
  await written();
  assert.notDeepEqual(await ids(), before, "compacted under new ids");
  assert.deepEqual(await reading.search(keys, query), found);
  assert.deepEqual(await reading.search(keys, query), found);
});

Deno.test("LanceDB reads a chat's links again only when a process changed the links or the indexes: this one's at once, another's within 100 ms", async () => {
  await using root = await tmpLocalRoot();
  const report = await copiedFixture(root.path, "report.pdf");
  await new LanceDB().store([report], chatParams("kept"));
  const modules = { lancedb, arrow };
  const asking = await LanceDBBackend.open(`${root.path}/lancedb`, modules);
  // Another process's backend on the same folder.
  const other = await LanceDBBackend.open(`${root.path}/lancedb`, modules);
  let reads = 0;
  const read = (asking as unknown as { chatLinks(chatId: string): Promise<unknown> }).chatLinks
    .bind(asking);
  Object.assign(asking, { chatLinks: (chatId: string) => (reads++, read(chatId)) });

  const first = await asking.links("kept");
  assert.deepEqual([...first.keys()], [report.id]);
  const { key } = first.get(report.id)!;
  assert.deepEqual(await asking.links("kept"), first);
  assert.equal(reads, 1);

  // Changed by the other process: read again once its versions are read again.
  await other.unlink("kept");
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal((await asking.links("kept")).size, 0);
  assert.equal(reads, 2);
  // Changed by this one: read again.
  await new LanceDB().store([report], chatParams("kept"));
  assert.equal(await asking.link({ chatId: "again", documentId: report.id, key: key }), true);
  assert.deepEqual([...(await asking.links("again")).keys()], [report.id]);
  assert.deepEqual([...(await asking.links("kept")).keys()], [report.id]);
  assert.equal(reads, 4);
  assert.deepEqual([...(await asking.links("kept")).keys()], [report.id]);
  assert.equal(reads, 4);
});

Deno.test("LanceDB's first search after a start reads the postings a search kept before, and removes them with the index", async () => {
  await using root = await tmpLocalRoot();
  const { params } = await storedFixtures(root.path, new LanceDB(), "kept");
  const modules = { lancedb, arrow };
  const path = `${root.path}/lancedb`;
  // Each search by a backend opened anew, as after a start.
  const opened = () => LanceDBBackend.open(path, modules);
  const keys = await linkedKeys(await opened(), "kept");
  const query = searchQuery("secret ingredient of the winter loaf");
  const found = await (await opened()).search(keys, query);
  assert.ok(found[0]!.length > 0);
  assert.equal((await counts(root.path)).postings, 2);
  // Read, not built again: nothing more is kept.
  assert.deepEqual(await (await opened()).search(keys, query), found);
  assert.equal((await counts(root.path)).postings, 2);

  // Bytes of no known format are built again and kept beside them; missing ones too.
  const db = await lancedb.connect(path);
  const postings = await db.openTable("postings");
  await postings.delete("true");
  await postings.add(keys.map((key) => ({ key, data: Uint8Array.of(9, 9, 9, 9) })));
  assert.deepEqual(await (await opened()).search(keys, query), found);
  assert.equal((await counts(root.path)).postings, 4);
  await postings.delete("true");
  assert.deepEqual(await (await opened()).search(keys, query), found);
  assert.equal((await counts(root.path)).postings, 2);
  db.close();

  await new LanceDB().delete(params);
  assert.equal((await counts(root.path)).postings, 0);
});

Deno.test("LanceDB writes the indexes added meanwhile together, and keeps them for the first question", async () => {
  await using root = await tmpLocalRoot();
  const path = `${root.path}/lancedb`;
  const backend = await LanceDBBackend.open(path, { lancedb, arrow });
  const add = (key: string, chatId: string) =>
    backend.add(randomIndex(key, 3, 4, key.length), { chatId, documentId: key, key });
  const keys = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];
  await Promise.all([...keys.map((key) => add(key, "chat")), add("removed", "gone")]);
  const db = await lancedb.connect(path);
  const chunks = await db.openTable("chunks_4");
  // A file a write: the first index alone, the others in one go.
  assert.ok((await chunks.stats()).fragmentStats.numFragments <= 2);
  assert.deepEqual((await linkedKeys(backend, "chat")).sort(), keys);
  // The postings wait for more indexes, or for a search.
  assert.deepEqual(await counts(root.path), { chunks_4: 21, indexes: 7, links: 7 });
  await backend.unlink("gone");
  assert.deepEqual(await counts(root.path), { chunks_4: 18, indexes: 6, links: 6, postings: 0 });

  // The chunks' rows gone from the table: found in memory all the same.
  await chunks.delete("true");
  db.close();
  const query = { text: "chunk of charlie", vector: Float32Array.of(1, 0, 0, 0), limit: 10 };
  const [text, vector] = await backend.search(keys, query);
  assert.deepEqual(text!.slice(0, 3).map((chunk) => chunk.text).sort(), [
    "chunk 0 of charlie",
    "chunk 1 of charlie",
    "chunk 2 of charlie",
  ]);
  assert.equal(vector!.length, 10);
  // Written by the search, but those of the index removed before.
  const postings = await (await lancedb.connect(path)).openTable("postings");
  assert.deepEqual(
    (await postings.query().select(["key"]).toArray()).map((row) => row.key).sort(),
    [
      ...keys,
    ],
  );
});

Deno.test("LanceDB reads the passages it stored and did not keep by their key and ordinal", async () => {
  await using root = await tmpLocalRoot();
  const backend = await LanceDBBackend.open(`${root.path}/lancedb`, { lancedb, arrow }, {
    passageMemory: 1,
  });
  const keys = ["first", "second"];
  for (const key of keys) {
    await backend.add(randomIndex(key, 3, 4, key.length), { chatId: "chat", documentId: key, key });
  }
  const query = { text: "chunk of second", vector: Float32Array.of(1, 0, 0, 0), limit: 10 };
  const [text, vector] = await backend.search(keys, query);
  assert.equal(text!.length, 6);
  assert.match(text![0]!.text, /^chunk \d of second$/);
  assert.deepEqual(text![0]!.pageNumbers, [1]);
  assert.equal(vector!.length, 6);
  assert.ok(vector!.every((chunk) => chunk.text === `chunk ${chunk.ordinal} of ${chunk.key}`));
});

Deno.test("LanceDB searches a folder from before the postings were kept on a read-only disk", async () => {
  await using disk = await smallDisk(32 * 1024 * 1024);
  // Only a real file system turns LanceDB's own writes away.
  if (disk.kind !== "tmpfs") return;
  await using root = await tmpLocalRoot();
  const report = await copiedFixture(root.path, "report.pdf");
  const path = `${disk.path}/lancedb`;
  const params = chatParams("old", { chunk_size: 8, chunk_overlap: 2 });
  await new LanceDB({ path }).store([report], params);
  const modules = { lancedb, arrow };
  const keys = await linkedKeys(await LanceDBBackend.open(path, modules), "old");
  await disk.readOnly();
  const found = await (await LanceDBBackend.open(path, modules)).search(
    keys,
    searchQuery("secret ingredient"),
  );
  assert.match(found[0]![0]!.text, /secret ingredient/i);
  await disk.writable();
});

slow.test("LanceDB compacts a chunks table every 32 writes, a large one once it grew by a quarter or when it is searched", async () => {
  await using root = await tmpLocalRoot();
  const backend = await LanceDBBackend.open(`${root.path}/lancedb`, { lancedb, arrow });
  // Reading the tables' latest versions, as the backend writes them.
  const db = await lancedb.connect(`${root.path}/lancedb`, { readConsistencyInterval: 0 });
  const fragments = async () =>
    (await (await db.openTable("chunks_4")).stats()).fragmentStats.numFragments;
  try {
    let added = 0;
    const add = (count: number) => {
      const key = `index-${added++}`;
      return backend.add(randomIndex(key, count, 4, added), {
        chatId: "chat",
        documentId: key,
        key,
      });
    };
    // 31 writes of a large index and small ones, a file each; the 32nd compacts them into few.
    await add(1000);
    for (let i = 1; i < 31; i++) await add(1);
    assert.equal(await fragments(), 31);
    await add(1);
    const compacted = await fragments();
    assert.ok(compacted <= 2, `${compacted} files`);
    // 1,031 rows compacted: 40 writes of 2 rows more are not a quarter of them, a file each.
    for (let i = 0; i < 40; i++) await add(2);
    assert.equal(await fragments(), compacted + 40);
    // 200 rows more in one write reach the quarter: compacted.
    await add(200);
    assert.ok(await fragments() <= 2);

    // 32 writes of a row: not a quarter, but compacted once the table is searched.
    for (let i = 0; i < 32; i++) await add(1);
    assert.ok(await fragments() >= 32);
    const keys = Array.from({ length: added }, (_, i) => `index-${i}`);
    const query = { text: "chunk", vector: Float32Array.of(1, 0, 0, 0), limit: 10 };
    const [text] = await backend.search(keys, query);
    assert.equal(text!.length, 10);
    // The compaction is queued behind the writes: a link taken after it waits for it.
    assert.equal(
      await backend.link({ chatId: "chat", documentId: "index-0", key: "index-0" }),
      true,
    );
    assert.ok(await fragments() <= 2);
    // The postings of the 105 indexes: 64 written at once, the others by the search.
    const postings = await db.openTable("postings");
    assert.equal(await postings.countRows(), added);
    assert.equal((await postings.stats()).fragmentStats.numFragments, 2);

    // Opened anew (a restart), the table counts as compacted with its 1,263 rows: 32 writes of a
    // row are not a quarter of them, a file each.
    const reopened = await LanceDBBackend.open(`${root.path}/lancedb`, { lancedb, arrow });
    const before = await fragments();
    for (let i = 0; i < 32; i++) {
      const key = `index-${added++}`;
      await reopened.add(randomIndex(key, 1, 4, added), { chatId: "chat", documentId: key, key });
    }
    assert.equal(await fragments(), before + 32);
  } finally {
    db.close();
  }
});
