import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { LocalDocument } from "../../components/core/document.ts";
import { SvcError } from "../../components/core/errors.ts";
import { Rag } from "../../components/rag.ts";
import { SvcDemoAssistant } from "../../components/assistants/demo.ts";
import {
  chunkLimits,
  DEFAULT_MAX_CHUNKS_PER_DOCUMENT,
} from "../../components/indexing/chunk_limits.ts";
import { LibSQL } from "../../components/source_storages/libsql.ts";
import { denoArgs, type Ended, run } from "../_process.ts";
import { tmpLocalRoot, writeFile } from "../test_utils.ts";
import { chatParams } from "../source_storages/_helpers.ts";
import { integration, slow } from "../_tier.ts";

/** Row counts of the LibSQL storage's tables of indexes, chunks and links. */
async function stored(root: string): Promise<Record<string, number>> {
  const client = createClient({ url: `file:${root}/libsql/sources.db` });
  try {
    const counted: Record<string, number> = {};
    for (const table of ["rag_indexes", "rag_chunks", "rag_links"]) {
      const result = await client.execute(`SELECT count(*) AS n FROM ${table}`);
      counted[table] = Number(result.rows[0]!.n);
    }
    return counted;
  } finally {
    client.close();
  }
}

Deno.test("chunkLimits() reads its bounds from the environment, with defaults", () => {
  assert.deepEqual(chunkLimits({}), {
    minChunkSize: 8,
    maxChunkSize: 8192,
    maxChunksPerDocument: 10_000,
  });
  assert.deepEqual(
    chunkLimits({
      SVC_MIN_CHUNK_SIZE: "32",
      SVC_MAX_CHUNK_SIZE: " 1024 ",
      SVC_MAX_CHUNKS_PER_DOCUMENT: "50",
    }),
    { minChunkSize: 32, maxChunkSize: 1024, maxChunksPerDocument: 50 },
  );
  assert.throws(
    () => chunkLimits({ SVC_MAX_CHUNKS_PER_DOCUMENT: "lots" }),
    (e) =>
      e instanceof SvcError &&
      e.message === 'SVC_MAX_CHUNKS_PER_DOCUMENT must be a positive whole number, not "lots"',
  );
  assert.throws(
    () => chunkLimits({ SVC_MIN_CHUNK_SIZE: "0" }),
    /SVC_MIN_CHUNK_SIZE must be a positive whole number, not "0"/,
  );
  assert.throws(
    () => chunkLimits({ SVC_MIN_CHUNK_SIZE: "600", SVC_MAX_CHUNK_SIZE: "100" }),
    /SVC_MIN_CHUNK_SIZE \(600\) must not be above SVC_MAX_CHUNK_SIZE \(100\)/,
  );
});

Deno.test("Rag.chat() refuses chunk_size below the minimum, and chunk_overlap not below chunk_size", () => {
  const chat = (params: Record<string, unknown>) =>
    new Rag().chat({ documents: [], sourceStorage: LibSQL, assistant: SvcDemoAssistant, params });
  assert.throws(
    () => chat({ chunk_size: 1 }),
    (e) =>
      e instanceof SvcError && e.status === 422 &&
      e.message === "The chat parameters have 1 problem:\n\n" +
          "These parameters have values that are not allowed:\n" +
          "- chunk_size = 1: must be at least 8",
  );
  assert.throws(
    () => chat({ chunk_size: 20_000 }),
    (e) =>
      e instanceof SvcError && e.message.endsWith("- chunk_size = 20000: must be at most 8192"),
  );
  assert.throws(
    () => chat({ chunk_size: 80 }),
    (e) =>
      e instanceof SvcError && e.status === 422 &&
      e.message.endsWith("- chunk_overlap = 100: must be less than chunk_size (80)"),
  );
  assert.throws(
    () => chat({ chunk_size: 100, chunk_overlap: 100 }),
    /- chunk_overlap = 100: must be less than chunk_size \(100\)/,
  );
  assert.ok(chat({ chunk_size: 8, chunk_overlap: 7 }));
});

/**
 * Runs a script in a process of its own with `env` set: the environment is the process's, and test
 * files running in parallel share this one's.
 */
async function withEnvironment(env: Record<string, string>, script: string): Promise<Ended> {
  const imports = [
    `import assert from "node:assert/strict";`,
    `import { paramsJsonSchema } from ${
      JSON.stringify(import.meta.resolve("../../components/core/params.ts"))
    };`,
    `import { Rag } from ${JSON.stringify(import.meta.resolve("../../components/mod.ts"))};`,
    `import { SvcDemoAssistant } from ${
      JSON.stringify(import.meta.resolve("../../components/assistants/demo.ts"))
    };`,
    `import { LibSQL } from ${
      JSON.stringify(import.meta.resolve("../../components/source_storages/libsql.ts"))
    };`,
  ];
  return await run(Deno.execPath(), denoArgs("eval", [...imports, script].join("\n")), { env });
}

integration.test("The chunking storages take their bounds of chunk_size from the environment when used", async () => {
  await using root = await tmpLocalRoot();
  const output = await withEnvironment(
    { SVC_MIN_CHUNK_SIZE: "64", SVC_MAX_CHUNK_SIZE: "1000", SVC_LOCAL_ROOT: root.path },
    `
    const schema = paramsJsonSchema("LibSQL", LibSQL.params).properties;
    assert.equal(schema.chunk_size.minimum, 64);
    assert.equal(schema.chunk_size.maximum, 1000);
    assert.throws(
      () => new Rag().chat({
        documents: [],
        sourceStorage: LibSQL,
        assistant: SvcDemoAssistant,
        params: { chunk_size: 32, chunk_overlap: 0 },
      }),
      /- chunk_size = 32: must be at least 64/,
    );
    // A call that skips the chat's checks meets the same bounds.
    const params = { chunk_size: 32, chunk_overlap: 0, user: "ada", chat_id: "direct",
      chat_name: "direct", signal: new AbortController().signal };
    await assert.rejects(() => new LibSQL().store([], params), /chunk_size/);
    console.log("checked");
    `,
  );
  assert.equal(output.code, 0, output.stderr);
  assert.equal(output.stdout, "checked\n");
});

integration.test("A chunking storage is not made with a bound in the environment that is not valid", async () => {
  const output = await withEnvironment(
    { SVC_MAX_CHUNKS_PER_DOCUMENT: "ten thousand" },
    "try { new LibSQL(); } catch (error) { console.log(error.name, error.message); }",
  );
  assert.equal(output.code, 0, output.stderr);
  assert.equal(
    output.stdout,
    'SvcError SVC_MAX_CHUNKS_PER_DOCUMENT must be a positive whole number, not "ten thousand"\n',
  );
});

slow.test("LibSQL refuses a document of more chunks than the limit before it stores anything", async () => {
  await using root = await tmpLocalRoot();
  const storage = new LibSQL();
  const small = LocalDocument.fromPath(await writeFile(root.path, "small.txt", "A few words.\n"));
  await storage.store([small], chatParams("other"));
  const before = await stored(root.path);

  // Chunks of 8 tokens that each repeat all but the last sentence of the one before: about one
  // chunk per sentence, past the default limit.
  const text = Array.from({ length: 12000 }, (_, i) => `w${i}.`).join(" ");
  const book = LocalDocument.fromPath(await writeFile(root.path, "book.txt", text));
  const params = chatParams("book", { chunk_size: 8, chunk_overlap: 7 });
  await assert.rejects(
    () => storage.store([book], params),
    (e) => {
      assert.ok(e instanceof SvcError);
      assert.equal(e.status, 422);
      const match =
        /^Cannot store "book\.txt": it would make (\d+) chunks, more than the limit of (\d+) per document: use a larger chunk_size, a smaller chunk_overlap, or split the document$/
          .exec(e.message);
      assert.ok(match, e.message);
      assert.ok(Number(match[1]) > DEFAULT_MAX_CHUNKS_PER_DOCUMENT);
      assert.equal(Number(match[2]), DEFAULT_MAX_CHUNKS_PER_DOCUMENT);
      return true;
    },
  );
  assert.deepEqual(await stored(root.path), before);

  // Within the limit, the same document is stored.
  await storage.store([book], chatParams("book", { chunk_size: 32, chunk_overlap: 8 }));
  assert.ok((await stored(root.path)).rag_chunks! > before.rag_chunks!);
});
