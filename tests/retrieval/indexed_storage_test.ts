import assert from "node:assert/strict";
import { copyFile, mkdir } from "node:fs/promises";
import { createClient } from "@libsql/client";
import { LocalDocument } from "../../components/core/document.ts";
import type { IndexBackend, IndexLink, NewIndex } from "../../components/indexing/mod.ts";
import { LibSQL } from "../../components/source_storages/libsql.ts";
import { tmpDir, tmpLocalRoot, writeFile } from "../test_utils.ts";
import { chatParams, copiedFixture } from "../source_storages/_helpers.ts";

/** How many indexes the database holds, and how many chat links. */
async function stored(path: string): Promise<{ indexes: number; links: number }> {
  const client = createClient({ url: `file:${path}` });
  try {
    const count = async (table: string) =>
      Number((await client.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
    return { indexes: await count("rag_indexes"), links: await count("rag_links") };
  } finally {
    client.close();
  }
}

/** Ada and Bob each store the same bytes, as a document of their own, in two chats each. */
async function adaAndBob(folder: string, storage: LibSQL): Promise<void> {
  const adas = await copiedFixture(folder, "report.pdf");
  await mkdir(`${folder}/bob`);
  await copyFile(adas.path, `${folder}/bob/report.pdf`);
  const bobs = LocalDocument.fromPath(`${folder}/bob/report.pdf`, { id: "bobs-report" });
  for (const [user, document] of [["ada", adas], ["bob", bobs]] as const) {
    for (const chat of [1, 2]) {
      await storage.store([document], { ...chatParams(`${user}-${chat}`), user });
    }
  }
}

Deno.test("an indexed storage indexes the same content once per user by default", async () => {
  await using folder = await tmpDir();
  const path = `${folder.path}/sources.db`;
  await adaAndBob(folder.path, new LibSQL({ url: `file:${path}` }));
  assert.deepEqual(await stored(path), { indexes: 2, links: 4 });
});

Deno.test("an indexed storage told to share indexes indexes the same content once for all users", async () => {
  await using folder = await tmpDir();
  const path = `${folder.path}/sources.db`;
  await adaAndBob(folder.path, new LibSQL({ url: `file:${path}`, shareIndexes: true }));
  assert.deepEqual(await stored(path), { indexes: 1, links: 4 });
});

/** LibSQL whose writes of an index first await `before(index)`, counting the writes under way. */
class WritesAfter extends LibSQL {
  /** How many writes are begun and not yet ended. */
  readonly writes = { underWay: 0 };

  constructor(private readonly before: (index: NewIndex) => Promise<void>) {
    super();
  }

  protected override async backend(): Promise<IndexBackend> {
    const backend = await super.backend();
    const before = this.before;
    const writes = this.writes;
    return new Proxy(backend, {
      get(target, name) {
        if (name === "add") {
          return async (index: NewIndex, link: IndexLink) => {
            writes.underWay++;
            try {
              await before(index);
              return await target.add(index, link);
            } finally {
              writes.underWay--;
            }
          };
        }
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }
}

/** Five small documents, `a.md` to `e.md`, each of its own words. */
async function fiveDocuments(folder: string): Promise<LocalDocument[]> {
  return await Promise.all(["a", "b", "c", "d", "e"].map(async (name) => {
    const text = `# ${name}\n\nThe ${name.repeat(5)} passage of document ${name}.\n`;
    return LocalDocument.fromPath(await writeFile(folder, `${name}.md`, text), { id: name });
  }));
}

Deno.test("an indexed storage parses the next documents while the earlier ones are written", async () => {
  await using root = await tmpLocalRoot();
  const documents = await fiveDocuments(root.path);
  const { promise: thirdParsed, resolve: parsed } = Promise.withResolvers<void>();
  // Only a guard against a hang: a storage that waits for each write before it parses the next
  // document would wait for ever; given up on, it fails the order asserted below.
  const timer = setTimeout(parsed, 60_000);
  const steps: string[] = [];
  const storage = new WritesAfter(() => thirdParsed);
  await storage.store(documents, {
    ...chatParams("chat"),
    progress: ({ document, stage }) => {
      steps.push(`${document.id} ${stage}`);
      if (document.id === "c" && stage === "parsed") parsed();
    },
  });
  clearTimeout(timer);
  assert.ok(steps.indexOf("c parsed") < steps.indexOf("a indexed"), steps.join(", "));
  assert.deepEqual(steps.filter((step) => step.endsWith("indexed")).sort(), [
    "a indexed",
    "b indexed",
    "c indexed",
    "d indexed",
    "e indexed",
  ]);
  const sources = await storage.retrieve(documents, "eeeee passage", chatParams("chat"));
  assert.equal(sources[0]!.document.id, "e");
});

Deno.test("an indexed storage ends a store at a write that fails: its error, for its document, and no document begun after", async () => {
  await using root = await tmpLocalRoot();
  const documents = await fiveDocuments(root.path);
  const steps: string[] = [];
  const storage = new WritesAfter((index) =>
    index.chunks.some((chunk) => chunk.text.includes("bbbbb"))
      ? Promise.reject(new Error("the write of b failed"))
      : Promise.resolve()
  );
  await assert.rejects(
    storage.store(documents, {
      ...chatParams("chat"),
      progress: (step) => {
        steps.push(`${step.document.id} ${step.stage}${"error" in step ? `: ${step.error}` : ""}`);
      },
    }),
    { message: "the write of b failed" },
  );
  const failed = steps.indexOf("b failed: the write of b failed");
  assert.ok(failed >= 0, steps.join(", "));
  assert.ok(!steps.slice(failed).some((step) => step.endsWith("reading")), steps.join(", "));
  assert.ok(!steps.includes("e reading"), steps.join(", "));
});

Deno.test("an indexed storage aborted with writes waiting settles once they are done: deleting the chat then leaves nothing", async () => {
  await using root = await tmpLocalRoot();
  const documents = await fiveDocuments(root.path);
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  const controller = new AbortController();
  const steps: string[] = [];
  const waiting = new Set<string>();
  const storage = new WritesAfter((index) => {
    // Each document's passage names it five times over.
    waiting.add(documents.find(({ id }) => index.chunks[0]!.text.includes(id.repeat(5)))!.id);
    // a and b waiting to be written abort the store; their writes go on a turn later, when a
    // store that did not wait for its writes has already settled.
    if (waiting.has("a") && waiting.has("b") && !controller.signal.aborted) {
      controller.abort();
      setTimeout(release, 0);
    }
    return released;
  });
  const params = { ...chatParams("chat"), signal: controller.signal };
  const storing = storage.store(documents, {
    ...params,
    progress: ({ document, stage }) => void steps.push(`${document.id} ${stage}`),
  });
  await assert.rejects(storing, (error) => (error as Error).name === "AbortError");
  assert.equal(storage.writes.underWay, 0, "no write outlives the store");
  assert.ok(steps.includes("a indexed") && steps.includes("b indexed"), steps.join(", "));
  assert.ok(!steps.some((step) => step.endsWith("failed")), steps.join(", "));
  assert.ok(!steps.includes("e reading"), steps.join(", "));
  await storage.delete(chatParams("chat"));
  assert.deepEqual(await stored(`${root.path}/libsql/sources.db`), { indexes: 0, links: 0 });
});
