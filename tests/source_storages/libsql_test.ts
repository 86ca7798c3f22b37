import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { Document, LocalDocument } from "../../components/core/document.ts";
import { SvcError } from "../../components/core/errors.ts";
import { textHandler } from "../../components/documents/text.ts";
import { HashEmbedder } from "../../components/embeddings/hash.ts";
import { fileClient, LibSQL } from "../../components/source_storages/libsql.ts";
import type { IndexBackend } from "../../components/indexing/mod.ts";
import { LibSQLBackend } from "../../components/source_storages/_libsql_backend.ts";
import { type SmallDisk, smallDisk } from "../_disk.ts";
import { denoArgs, spawn } from "../_process.ts";
import { FIXTURES, tmpLocalRoot, writeFile } from "../test_utils.ts";
import {
  chatParams,
  copiedFixture,
  linkedKeys,
  PDF_QUESTIONS,
  searchQuery,
  storedFixtures,
} from "./_helpers.ts";
import { recordCalls, watchWorkers } from "./_threads.ts";
import { assertTextArmKeepsToChat, assertVectorArmExact } from "./_arms.ts";
import { integration, slow } from "../_tier.ts";

/** Row counts of the storage's tables in the local root's database. */
function counts(root: string): Promise<Record<string, number>> {
  return countsIn(`${root}/libsql/sources.db`);
}

/** Row counts of the storage's tables in a database file. */
async function countsIn(path: string): Promise<Record<string, number>> {
  const client = createClient({ url: `file:${path}` });
  try {
    const tables = await client.execute(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'rag_*'
        AND name != 'rag_meta' ORDER BY name`,
    );
    const counted: Record<string, number> = {};
    for (const row of tables.rows) {
      const name = String(row.name);
      const result = await client.execute(`SELECT count(*) AS n FROM ${name}`);
      counted[name] = Number(result.rows[0]!.n);
    }
    return counted;
  } finally {
    client.close();
  }
}

Deno.test("LibSQL finds the page that answers each question about a PDF first", async () => {
  await using _root = await tmpLocalRoot();
  const report = LocalDocument.fromPath(`${FIXTURES}report.pdf`);
  // Chunks of a few words, so that most lie on one page.
  const params = chatParams("pdf", { chunk_size: 8, chunk_overlap: 4, num_tokens: 30 });
  const storage = new LibSQL();
  await storage.store([report], params);
  for (const [question, page] of PDF_QUESTIONS) {
    const sources = await storage.retrieve([report], question, params);
    assert.equal(sources[0]?.location, page, `${question} -> ${sources[0]?.location}`);
  }
});

Deno.test("LibSQL indexes a document once for every chat, and removes it with the last", async () => {
  await using root = await tmpLocalRoot();
  const report = await copiedFixture(root.path, "report.pdf");
  const same = LocalDocument.fromPath(report.path, { id: "another-upload-of-the-same-file" });
  const storage = new LibSQL();
  await Promise.all([
    storage.store([report], chatParams("first")),
    storage.store([same], chatParams("second")),
  ]);
  await storage.store([report], chatParams("third"));
  const stored = await counts(root.path);
  assert.equal(stored.rag_indexes, 1);
  assert.equal(stored.rag_links, 3);
  assert.equal(stored.rag_vectors_512, stored.rag_chunks);
  assert.equal(stored.rag_postings, 1);

  await storage.delete(chatParams("first"));
  await storage.delete(chatParams("second"));
  assert.deepEqual(await counts(root.path), { ...stored, rag_links: 1 });
  await storage.delete(chatParams("third"));
  assert.deepEqual(await counts(root.path), {
    rag_builds: 0,
    rag_chunks: 0,
    rag_indexes: 0,
    rag_links: 0,
    rag_postings: 0,
    rag_vectors_512: 0,
  });
});

/** The FTS5 table of the chunks' text and its triggers, as the storage's schema version 1 made them. */
const FTS5_OF_VERSION_1 = [
  `CREATE VIRTUAL TABLE rag_chunks_fts USING fts5(text, content='rag_chunks',
    content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')`,
  `CREATE TRIGGER rag_chunks_insert AFTER INSERT ON rag_chunks BEGIN
    INSERT INTO rag_chunks_fts (rowid, text) VALUES (new.id, new.text);
  END`,
  `CREATE TRIGGER rag_chunks_delete AFTER DELETE ON rag_chunks BEGIN
    INSERT INTO rag_chunks_fts (rag_chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
  END`,
];

Deno.test("LibSQL drops the FTS5 table of a database of schema version 1, and keeps its indexes", async () => {
  await using root = await tmpLocalRoot();
  const report = await copiedFixture(root.path, "report.pdf");
  const params = chatParams("kept");
  await new LibSQL().store([report], params);
  // The database as svc 0.3.0 left it: its chunks' text in an FTS5 table, kept by triggers.
  const path = `${root.path}/libsql/sources.db`;
  const client = createClient({ url: `file:${path}` });
  try {
    await client.batch([
      ...FTS5_OF_VERSION_1,
      `INSERT INTO rag_chunks_fts (rag_chunks_fts) VALUES ('rebuild')`,
      `UPDATE rag_meta SET value = '1' WHERE name = 'schema'`,
    ], "write");
    const before = await counts(root.path);
    assert.ok(before.rag_chunks_fts_docsize! > 0);

    const sources = await new LibSQL().retrieve([report], "What is the secret ingredient?", params);
    assert.match(sources[0]!.content, /cardamom/);
    const { rows } = await client.execute(
      `SELECT type, name FROM sqlite_master WHERE name GLOB 'rag_chunks_*' ORDER BY name`,
    );
    assert.deepEqual(rows.map((row) => `${row.type} ${row.name}`), ["index rag_chunks_by_index"]);
    const version = await client.execute(`SELECT value FROM rag_meta WHERE name = 'schema'`);
    assert.equal(version.rows[0]!.value, "2");
    const after = await counts(root.path);
    assert.deepEqual(after, {
      rag_builds: 0,
      rag_chunks: before.rag_chunks,
      rag_indexes: 1,
      rag_links: 1,
      rag_postings: 1,
      rag_vectors_512: before.rag_chunks,
    });

    // svc 0.3.0 opening it since makes its table and triggers again before it refuses it: they go
    // again at the next start.
    await client.batch(FTS5_OF_VERSION_1, "write");
    await new LibSQL().retrieve([report], "bread", params);
    const left = await client.execute(
      `SELECT name FROM sqlite_master WHERE name GLOB 'rag_chunks_fts*' OR type = 'trigger'`,
    );
    assert.deepEqual(left.rows, []);

    // A later version's database is refused, naming both versions.
    await client.execute(`UPDATE rag_meta SET value = '3' WHERE name = 'schema'`);
    await assert.rejects(
      new LibSQL().retrieve([report], "bread", params),
      /its rag_\* tables have schema version 3, and this svc knows 2/,
    );
  } finally {
    client.close();
  }
});

Deno.test("LibSQL indexes anew for other chunk settings or another embedder", async () => {
  await using root = await tmpLocalRoot();
  const guide = await copiedFixture(root.path, "guide.md");
  const params = chatParams("chat", { chunk_size: 8, chunk_overlap: 2 });
  await new LibSQL().store([guide], params);

  // The same chat asked with another embedder re-embeds, and drops the index no one uses.
  const other = new LibSQL({ embedder: new HashEmbedder({ dimension: 64 }) });
  const sources = await other.retrieve([guide], "Ctrl+C", params);
  assert.match(sources[0]!.content, /Ctrl/);
  const afterEmbedder = await counts(root.path);
  assert.equal(afterEmbedder.rag_indexes, 1);
  assert.equal(afterEmbedder.rag_vectors_512, 0);
  assert.equal(afterEmbedder.rag_vectors_64, afterEmbedder.rag_chunks);

  const larger = chatParams("chat", { chunk_size: 100, chunk_overlap: 2 });
  const [whole] = await other.retrieve([guide], "How do I start the service?", larger);
  assert.equal(whole!.content, await Deno.readTextFile(guide.path).then((t) => t.slice(1).trim()));
  assert.equal((await counts(root.path)).rag_chunks, 1);
});

slow.test("LibSQL keeps answering while it indexes: the work is off the main thread", async () => {
  await using root = await tmpLocalRoot();
  const storage = new LibSQL();
  const guide = await copiedFixture(root.path, "guide.md");
  const asking = chatParams("asking", { chunk_size: 8, chunk_overlap: 2 });
  await storage.store([guide], asking);
  const words = Array.from({ length: 150_000 }, (_, i) => `word${i % 5000}`).join(" ");
  const long = LocalDocument.fromPath(await writeFile(root.path, "long.txt", words));
  const params = chatParams("long", { chunk_size: 100, chunk_overlap: 0 });

  using workers = watchWorkers();
  // Parsing, chunking and embedding belong to the worker; here only the prompts are embedded.
  using embedded = recordCalls(HashEmbedder.prototype, "embedSync");
  using parsed = recordCalls(Document.prototype, "extractPages");
  using read = recordCalls(textHandler, "extractPages");
  const posted = workers.nextPost();
  let stored = false;
  const storing = storage.store([long], params).finally(() => stored = true);
  await posted;
  // Answers that began and ended while the worker had the document, with no reply in between.
  let answeredMeanwhile = 0;
  while (!stored) {
    // The client settles a file database's queries without a turn of the event loop, which
    // the worker's reply needs: a request arrives in a turn of its own.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const replies = workers.replies;
    const [first] = await storage.retrieve([guide], "Ctrl+C", asking);
    assert.match(first!.content, /Ctrl/);
    if (workers.replies === replies && !stored) answeredMeanwhile++;
  }
  await storing;

  assert.ok(answeredMeanwhile >= 3, `${answeredMeanwhile} answers while the worker indexed`);
  assert.deepEqual(parsed.calls, []);
  assert.deepEqual(read.calls, []);
  const embeddedHere = embedded.calls.flatMap(([texts]) => texts as string[]);
  assert.ok(embeddedHere.length > 0, "the prompts were embedded here");
  const chunksHere = embeddedHere.filter((text) => text !== "Ctrl+C").length;
  assert.equal(chunksHere, 0, `${chunksHere} other texts were embedded on the main thread`);
  const [found] = await storage.retrieve([long], "word4999", params);
  assert.match(found!.content, /word4999/);
});

Deno.test("LibSQL answers a prompt longer than its full-text query by its telling words", async () => {
  await using _root = await tmpLocalRoot();
  const report = LocalDocument.fromPath(`${FIXTURES}report.pdf`);
  const params = chatParams("long", { chunk_size: 32, chunk_overlap: 16 });
  const filler = Array.from({ length: 300 }, (_, i) => `w${i}`).join(" ");
  const sources = await new LibSQL().retrieve([report], `${filler} cardamom`, params);
  assert.match(sources[0]!.content, /cardamom/);
});

Deno.test("LibSQL refuses an unreadable document by name and stores nothing of it", async () => {
  await using root = await tmpLocalRoot();
  const fake = LocalDocument.fromPath(await writeFile(root.path, "fake.pdf", "Not a PDF."));
  const guide = await copiedFixture(root.path, "guide.md");
  const storage = new LibSQL();
  const error = await storage.store([guide, fake], chatParams("bad")).catch((e) => e);
  assert.ok(error instanceof SvcError && error.status === 422, String(error));
  assert.match(error.message, /^Cannot read "fake\.pdf": /);
  // The other document of the store is kept; nothing of the unreadable one is.
  const stored = await counts(root.path);
  assert.equal(stored.rag_indexes, 1);
  assert.equal(stored.rag_links, 1);
});

Deno.test("LibSQL refuses chunk_overlap not below chunk_size before reading anything", async () => {
  await using _root = await tmpLocalRoot();
  const missing = LocalDocument.fromPath("/nonexistent/report.pdf");
  await assert.rejects(
    async () => await new LibSQL().store([missing], chatParams("x", { chunk_size: 80 })),
    (error) =>
      error instanceof SvcError && error.status === 422 &&
      error.message === "chunk_overlap must be less than chunk_size (80), not 100",
  );
});

Deno.test("LibSQL uses the database a URL names, and says when it cannot open it", async () => {
  await using root = await tmpLocalRoot();
  const guide = await copiedFixture(root.path, "guide.md");
  const url = `file:${root.path}/elsewhere.db`;
  const sources = await new LibSQL({ url }).retrieve([guide], "start", chatParams("url"));
  assert.equal(sources[0]!.document, guide);
  assert.ok((await Deno.stat(`${root.path}/elsewhere.db`)).isFile);
  await assert.rejects(Deno.stat(`${root.path}/libsql/sources.db`), Deno.errors.NotFound);

  const unreachable = new LibSQL({ url: "http://127.0.0.1:9/" });
  await assert.rejects(
    async () => await unreachable.retrieve([guide], "start", chatParams("url")),
    (error) =>
      error instanceof SvcError && error.status === 503 &&
      error.message.startsWith(`Cannot open the LibSQL database "http://127.0.0.1:9/": `),
  );
});

/** Rows of chunks whose index is not complete, and builds left: what a stopped build leaves. */
async function partialRows(path: string): Promise<{ chunks: number; builds: number }> {
  const client = createClient({ url: `file:${path}` });
  try {
    const [chunks, builds] = await client.batch([
      `SELECT count(*) AS n FROM rag_chunks
        WHERE index_id NOT IN (SELECT id FROM rag_indexes WHERE key IS NOT NULL)`,
      `SELECT count(*) AS n FROM rag_builds`,
    ], "read");
    return { chunks: Number(chunks!.rows[0]!.n), builds: Number(builds!.rows[0]!.n) };
  } finally {
    client.close();
  }
}

/** A text of `words` distinct-enough words, for documents of many chunks. */
function manyWords(words: number, seed = ""): string {
  return Array.from({ length: words }, (_, i) => `${seed}word${i % 997}`).join(" ");
}

integration.test("LibSQL removes the rows of a build killed midway as soon as it opens the database again", async () => {
  await using root = await tmpLocalRoot();
  const path = await writeFile(root.path, "long.txt", manyWords(6000));
  const long = LocalDocument.fromPath(path, { id: "long" });
  const params = { chunk_size: 8, chunk_overlap: 0 };
  const marker = `${root.path}/stalled`;
  const url = (module: string) =>
    JSON.stringify(new URL(`../../components/${module}`, import.meta.url).href);
  // Its client stops for ever after two batches of chunks, as a process about to be killed.
  const script = `
    import { createClient } from "@libsql/client";
    import { LocalDocument, localRoot } from ${url("mod.ts")};
    import { LibSQL } from ${url("source_storages/libsql.ts")};
    import { LibSQLBackend } from ${url("source_storages/_libsql_backend.ts")};
    localRoot(${JSON.stringify(root.path)});
    await Deno.mkdir(${JSON.stringify(`${root.path}/libsql`)}, { recursive: true });
    const client = createClient({ url: ${JSON.stringify(`file:${root.path}/libsql/sources.db`)} });
    let batches = 0;
    const stalling = new Proxy(client, {
      get(target, name) {
        const value = Reflect.get(target, name);
        if (name !== "batch") return typeof value === "function" ? value.bind(target) : value;
        return async (statements, mode) => {
          const chunks = statements.some((s) => String(s.sql ?? s).includes("INTO rag_chunks (index_id"));
          if (chunks && batches++ === 2) {
            await Deno.writeTextFile(${JSON.stringify(marker)}, "");
            await new Promise(() => {});
          }
          return await value.call(target, statements, mode);
        };
      },
    });
    class Stalling extends LibSQL {
      backend() {
        return this.opened ??= LibSQLBackend.open(stalling);
      }
    }
    const long = LocalDocument.fromPath(${JSON.stringify(path)}, { id: "long" });
    await new Stalling().store([long], { user: "ada", chat_id: "killed", chat_name: "x",
      chunk_size: 8, chunk_overlap: 0, signal: new AbortController().signal });
  `;
  await using child = spawn(Deno.execPath(), denoArgs("eval", script));
  let over = false;
  child.ended.finally(() => over = true).catch(() => {});
  while (!(await Deno.stat(marker).then(() => true, () => false))) {
    if (over) throw new Error(`The build ended before it stalled: ${child.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const ended = await child.stop("SIGKILL");
  assert.equal(ended.signal, "SIGKILL", ended.stderr);
  const database = `${root.path}/libsql/sources.db`;
  assert.deepEqual(await partialRows(database), { chunks: 400, builds: 1 }, "killed midway");

  // Opening finds the build's process gone: its rows go before anything else is done.
  const storage = new LibSQL();
  await storage.retrieve([], "anything", chatParams("other", params));
  assert.deepEqual(await partialRows(database), { chunks: 0, builds: 0 });
  await storage.store([long], chatParams("again", params));
  const stored = await counts(root.path);
  assert.equal(stored.rag_indexes, 1);
  assert.equal(stored.rag_builds, 0);
  assert.equal(stored.rag_chunks, stored.rag_vectors_512);
  // As many chunks as the document makes in a database of its own, nothing more.
  const fresh = `${root.path}/fresh.db`;
  await new LibSQL({ url: `file:${fresh}` }).store([long], chatParams("fresh", params));
  assert.equal(stored.rag_chunks, (await countsIn(fresh)).rag_chunks);
  assert.ok(stored.rag_chunks! > 600, `${stored.rag_chunks} chunks: more than three batches`);
});

/** LibSQL on the disk's `sources.db`; with injected faults, through a client that meets them. */
function libsqlOn(disk: SmallDisk): LibSQL {
  const url = `file:${disk.path}/sources.db`;
  if (disk.kind === "tmpfs") return new LibSQL({ url });
  let opened: Promise<LibSQLBackend> | undefined;
  return new class extends LibSQL {
    protected override backend(): Promise<IndexBackend> {
      return opened ??= LibSQLBackend.open(disk.client(createClient({ url })), {
        reclaimSpace: true,
      });
    }
  }();
}

Deno.test("LibSQL answers 507 naming the document when the disk fills during a store, and leaves one complete index once there is space", async () => {
  await using root = await tmpLocalRoot();
  await using disk = await smallDisk(24 * 1024 * 1024);
  const small = await copiedFixture(root.path, "guide.md");
  const big = LocalDocument.fromPath(
    await writeFile(root.path, "big.md", manyWords(4000, "x")),
    { id: "big" },
  );
  const params = { chunk_size: 8, chunk_overlap: 0 };
  const storage = libsqlOn(disk);
  await storage.store([small], chatParams("small", params));

  // Room for some batches of the index, not for all of it.
  await disk.fill({ leave: 512 * 1024 });
  await assert.rejects(
    async () => await storage.store([big], chatParams("big", params)),
    (error) =>
      error instanceof SvcError && error.status === 507 &&
      error.message === 'Cannot store the index of "big.md" in LibSQL: the disk is full',
  );
  // What was stored before is there and answers.
  const sources = await storage.retrieve([small], "start the service", chatParams("small", params));
  assert.equal(sources[0]?.document, small);

  await disk.free();
  await storage.store([big], chatParams("big", params));
  const database = `${disk.path}/sources.db`;
  assert.deepEqual(await partialRows(database), { chunks: 0, builds: 0 });
  const stored = await countsIn(database);
  assert.equal(stored.rag_indexes, 2);
  assert.equal(stored.rag_chunks, stored.rag_vectors_512);
});

Deno.test("LibSQL opened while its disk is read-only answers 503, and stores once the disk is writable, without a restart", async () => {
  await using root = await tmpLocalRoot();
  await using disk = await smallDisk(4 * 1024 * 1024);
  const guide = await copiedFixture(root.path, "guide.md");
  const report = await copiedFixture(root.path, "report.pdf");
  await new LibSQL().store([guide], chatParams("before"));
  // Copied, so that no process holds a file of the disk open when it turns read-only.
  const path = `${disk.path}/sources.db`;
  for (const suffix of ["", "-wal"]) {
    const made = `${root.path}/libsql/sources.db${suffix}`;
    if (await Deno.stat(made).then(() => true, () => false)) {
      await Deno.copyFile(made, path + suffix);
    }
  }
  await disk.readOnly();
  const storage = new LibSQL({ url: `file:${path}` });
  await assert.rejects(
    async () => await storage.store([report], chatParams("during")),
    (error) =>
      error instanceof SvcError && error.status === 503 &&
      error.message === `Cannot open the LibSQL database "${path}": the disk is read-only`,
  );
  await disk.writable();
  await storage.store([report], chatParams("during"));
  const sources = await storage.retrieve([report], "secret ingredient", chatParams("during"));
  assert.equal(sources[0]?.document, report);
});

Deno.test("LibSQL gives the space of a deleted chat's indexes back to the disk", async () => {
  await using root = await tmpLocalRoot();
  const long = LocalDocument.fromPath(await writeFile(root.path, "long.txt", manyWords(20_000)), {
    id: "long",
  });
  const storage = new LibSQL();
  const params = chatParams("big", { chunk_size: 8, chunk_overlap: 0 });
  const database = `${root.path}/libsql/sources.db`;
  const onDisk = async () => {
    const size = (file: string) => Deno.stat(file).then((s) => s.size, () => 0);
    return await size(database) + await size(`${database}-wal`);
  };
  await storage.retrieve([], "", chatParams("empty"));
  const empty = await onDisk();
  await storage.store([long], params);
  const full = await onDisk();
  assert.ok(full - empty > 2_000_000, `the index took ${full - empty} bytes`);
  await storage.delete(params);
  const after = await onDisk();
  assert.ok(after - empty < (full - empty) / 10, `${after - empty} of ${full - empty} bytes stay`);
});

Deno.test("LibSQL ranks full text over the chat's documents only: words of other users' documents weigh nothing", async () => {
  await using root = await tmpLocalRoot();
  await assertTextArmKeepsToChat(root.path, new LibSQL(), new LibSQL());
});

Deno.test("LibSQL's vector arm ranks as an exact scan of the chat's stored vectors", async () => {
  await using root = await tmpLocalRoot();
  // About 1,800 chunks over two documents, more than the arm ranks exactly by stored vectors.
  const documents = await Promise.all(
    ["a", "b"].map(async (seed) =>
      LocalDocument.fromPath(await writeFile(root.path, `${seed}.txt`, manyWords(2000, seed)), {
        id: seed,
      })
    ),
  );
  const params = chatParams("vectors", { chunk_size: 8, chunk_overlap: 0 });
  const storage = new LibSQL();
  await storage.store(documents, params);
  const client = createClient({ url: `file:${root.path}/libsql/sources.db` });
  const { rows } = await client.execute(
    `SELECT i.key, c.ordinal, v.chunk_id, v.embedding FROM rag_vectors_512 v
      JOIN rag_chunks c ON c.id = v.chunk_id JOIN rag_indexes i ON i.id = c.index_id`,
  );
  client.close();
  assert.ok(rows.length > 1000, `${rows.length} chunks`);
  const stored = rows.map((row) => ({
    id: `${String(row.key).slice(0, 32)}-${row.ordinal}`,
    tie: Number(row.chunk_id),
    vector: new Float32Array(row.embedding as ArrayBuffer),
  }));
  for (const question of ["aword12 aword7", "bword3 bword900 bword41", "nothing at all"]) {
    await assertVectorArmExact(storage, { documents, params }, question, stored);
  }
});

Deno.test("LibSQL searches the same with too little memory to keep the indexes or the passages: it reads them again", async () => {
  await using root = await tmpLocalRoot();
  await storedFixtures(root.path, new LibSQL(), "small");
  const client = createClient({ url: `file:${root.path}/libsql/sources.db` });
  try {
    const keys = await linkedKeys(await LibSQLBackend.open(client), "small");
    const query = searchQuery("secret ingredient of the winter loaf");
    const roomy = await (await LibSQLBackend.open(client)).search(keys, query);
    const tight = await LibSQLBackend.open(client, { searchMemory: 1 });
    assert.ok(roomy[0]!.length > 0 && roomy[1]!.length > 0);
    assert.deepEqual(await tight.search(keys, query), roomy);
    assert.deepEqual(await tight.search(keys, query), roomy);
    assert.deepEqual(await tight.search([], query), [[], []]);
    assert.deepEqual(await tight.search(["no-such-index"], query), [[], []]);
    // Passages beyond their budget are read from the database at each question.
    const reading = await LibSQLBackend.open(client, { passageMemory: 1 });
    assert.deepEqual(await reading.search(keys, query), roomy);
    assert.deepEqual(await reading.search(keys, query), roomy);
  } finally {
    client.close();
  }
});

Deno.test("LibSQL searches a chat asked again with what it read for the last question, until a connection writes", async () => {
  await using root = await tmpLocalRoot();
  await storedFixtures(root.path, new LibSQL(), "again");
  const url = `file:${root.path}/libsql/sources.db`;
  const own = createClient({ url });
  const other = createClient({ url });
  try {
    const backend = await LibSQLBackend.open(own);
    const keys = await linkedKeys(backend, "again");
    const query = searchQuery("secret ingredient of the winter loaf");
    const found = await backend.search(keys, query);
    const keysFound = (arms: { key: string }[][]) => new Set(arms.flat().map((chunk) => chunk.key));
    assert.deepEqual(keysFound(found), new Set(keys));
    assert.deepEqual(await backend.search(keys, query), found);
    // Another connection removes an index: the same list of keys is read again, without it.
    await other.execute("PRAGMA foreign_keys = OFF");
    await other.execute({ sql: `DELETE FROM rag_indexes WHERE key = ?`, args: [keys[0]!] });
    const after = await backend.search(keys, query);
    assert.deepEqual(keysFound(after), new Set(keys.slice(1)));
    assert.deepEqual(await backend.search(keys, query), after);
  } finally {
    own.close();
    other.close();
  }
});

Deno.test("LibSQL keeps a chat's links between questions until a connection writes to the database", async () => {
  await using root = await tmpLocalRoot();
  const { report, guide } = await storedFixtures(root.path, new LibSQL(), "kept");
  const url = `file:${root.path}/libsql/sources.db`;
  const own = createClient({ url });
  const other = createClient({ url });
  try {
    const backend = await LibSQLBackend.open(own);
    const first = await backend.links("kept");
    assert.deepEqual([...first.keys()].sort(), [guide.id, report.id].sort());
    const query = searchQuery("secret ingredient");
    const keys = [...first.values()].map((info) => info.key);
    const found = await backend.search(keys, query);

    // A row changed through the backend's own connection but not by it is not seen: the links
    // and the indexes' ids are kept.
    await own.execute({ sql: `DELETE FROM rag_links WHERE document_id = ?`, args: [guide.id] });
    assert.deepEqual(await backend.links("kept"), first);
    // Another connection's commit is: everything is read again.
    await other.execute({
      sql: `INSERT INTO rag_links (chat_id, document_id, index_id)
        SELECT 'kept', 'a-third', index_id FROM rag_links WHERE document_id = ?`,
      args: [report.id],
    });
    assert.deepEqual([...(await backend.links("kept")).keys()].sort(), ["a-third", report.id]);
    assert.deepEqual(await backend.search(keys, query), found);
    await other.execute({ sql: `DELETE FROM rag_links WHERE chat_id = 'kept'` });
    assert.equal((await backend.links("kept")).size, 0);

    // So is the backend's own write.
    await own.execute({
      sql: `INSERT INTO rag_links (chat_id, document_id, index_id)
        SELECT 'kept', ?, id FROM rag_indexes WHERE key = ?`,
      args: [report.id, first.get(report.id)!.key],
    });
    assert.equal((await backend.links("kept")).size, 0);
    // Each of a backend's writes adds one to the count of writes, which every connection reads.
    const generation = async () =>
      Number(
        (await other.execute(`SELECT value FROM rag_meta WHERE name = 'generation'`)).rows[0]![0],
      );
    const before = await generation();
    assert.equal(
      await backend.link({ chatId: "kept", documentId: guide.id, key: first.get(guide.id)!.key }),
      true,
    );
    assert.equal(await generation(), before + 1);
    assert.deepEqual(
      [...(await backend.links("kept")).keys()].sort(),
      [guide.id, report.id].sort(),
    );
  } finally {
    own.close();
    other.close();
  }
});

Deno.test("LibSQL's first search after a start reads the postings it kept, and builds and keeps those it lacks", async () => {
  await using root = await tmpLocalRoot();
  await storedFixtures(root.path, new LibSQL(), "kept");
  const client = createClient({ url: `file:${root.path}/libsql/sources.db` });
  try {
    const keys = await linkedKeys(await LibSQLBackend.open(client), "kept");
    const query = searchQuery("secret ingredient of the winter loaf");
    // Each search by a backend opened anew, as after a start.
    const search = async () => await (await LibSQLBackend.open(client)).search(keys, query);
    const kept = async () =>
      (await client.execute(
        `SELECT p.index_id, p.created_at = i.created_at AS same FROM rag_postings p
          JOIN rag_indexes i ON i.id = p.index_id ORDER BY p.index_id`,
      )).rows.map((row) => Number(row.same));
    const found = await search();
    assert.ok(found[0]!.length > 0);
    assert.deepEqual(await kept(), [1, 1]);

    // Postings built from the texts rank the same: none kept, then of another index that had the
    // same id, then bytes of no known format; each time they are built and kept again.
    for (
      const spoil of [
        `DELETE FROM rag_postings`,
        `UPDATE rag_postings SET created_at = created_at - 1`,
        `UPDATE rag_postings SET data = x'00010203'`,
      ]
    ) {
      await client.execute(spoil);
      assert.deepEqual(await search(), found, spoil);
      assert.deepEqual(await kept(), [1, 1], spoil);
      const { rows } = await client.execute(`SELECT length(data) AS n FROM rag_postings`);
      assert.ok(rows.every((row) => Number(row.n) > 4), spoil);
    }

    // The full-text ranking is the kept postings', not the texts': a text changed under them
    // still ranks by the words it had.
    const places = (chunks: { key: string; ordinal: number }[]) =>
      chunks.map((chunk) => `${chunk.key}-${chunk.ordinal}`);
    await client.execute(`UPDATE rag_chunks SET text = 'nothing of interest'`);
    assert.deepEqual(places((await search())[0]!), places(found[0]!));
  } finally {
    client.close();
  }
});

Deno.test("fileClient() reads memory-mapped at every call, calls made at once included", async () => {
  const folder = await Deno.makeTempDir();
  const client = await fileClient(`file:${folder}/sources.db`);
  try {
    // Four calls under way at once: a client of several connections opened three more without it.
    const sizes = await Promise.all(
      Array.from({ length: 4 }, () => client.execute("PRAGMA mmap_size")),
    );
    assert.deepEqual(sizes.map(({ rows }) => Number(rows[0]![0])), Array(4).fill(2 ** 30));
    const { rows } = await client.execute("PRAGMA journal_mode");
    assert.equal(rows[0]![0], "wal");
  } finally {
    client.close();
    await Deno.remove(folder, { recursive: true });
  }
});
