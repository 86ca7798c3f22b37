import assert from "node:assert/strict";
import { getPriority } from "node:os";
import { chunkPages } from "../../components/chunking.ts";
import { Document, LocalDocument } from "../../components/mod.ts";
import { SvcError } from "../../components/core/errors.ts";
import type { Page } from "../../components/core/page.ts";
import type { Embedder } from "../../components/embeddings/embedder.ts";
import { HashEmbedder } from "../../components/embeddings/hash.ts";
import { readPdfPages } from "../../components/documents/pdf/mod.ts";
import { chunkAndEmbed } from "../../components/indexing/pipeline.ts";
import { denoArgs, run } from "../_process.ts";
import { FIXTURES, tmpDir, writeFile } from "../test_utils.ts";
import { watchThreads, watchWorkers, workerThreads } from "../source_storages/_threads.ts";
import { integration } from "../_tier.ts";

const settings = { chunkSize: 30, chunkOverlap: 10 };

Deno.test("chunkAndEmbed() chunks and hash-embeds in the worker as it would here", async () => {
  const document = LocalDocument.fromPath(`${FIXTURES}report.pdf`);
  const embedder = new HashEmbedder({ dimension: 64 });
  const { chunks, vectors } = await chunkAndEmbed(document, { ...settings, embedder });
  const expected = chunkPages(await document.extractPages(), settings);
  assert.deepEqual(chunks, expected);
  assert.deepEqual(vectors, embedder.embedSync(expected.map((chunk) => chunk.text)));
});

Deno.test("chunkAndEmbed() reports the pages once parsed and the chunks once cut, before it ends", async () => {
  const document = LocalDocument.fromPath(`${FIXTURES}report.pdf`);
  const steps: { pages: number; chunks?: number }[] = [];
  const { chunks } = await chunkAndEmbed(document, {
    ...settings,
    embedder: new HashEmbedder({ dimension: 64 }),
    onProgress: (step) => steps.push(step),
  });
  const pages = (await document.extractPages()).length;
  assert.deepEqual(steps, [{ pages }, { pages, chunks: chunks.length }]);
});

Deno.test("chunkAndEmbed() tells nothing more of a job once it is aborted", async () => {
  using workers = watchWorkers();
  const document = LocalDocument.fromPath(`${FIXTURES}report.pdf`);
  const stop = new AbortController();
  const steps: unknown[] = [];
  const working = chunkAndEmbed(document, {
    ...settings,
    embedder: new HashEmbedder({ dimension: 64 }),
    signal: stop.signal,
    onProgress: (step) => {
      steps.push(step);
      stop.abort(new Error("left"));
    },
  });
  await assert.rejects(working, /left/);
  assert.equal(steps.length, 1);
  // Aborted at the first step, its pages read: the job never went to the indexing worker, so
  // nothing is left that could tell a second step.
  assert.equal(workers.posted, 0);
});

Deno.test("chunkAndEmbed() reads a PDF page by page into the chunks of its whole text", async () => {
  const path = new URL("../fixtures/labelled/clsguide.pdf", import.meta.url).pathname;
  const embedder = new HashEmbedder({ dimension: 64 });
  const { chunks } = await chunkAndEmbed(LocalDocument.fromPath(path), { ...settings, embedder });
  const pages = await readPdfPages(await Deno.readFile(path), "clsguide.pdf", { workers: 0 });
  assert.deepEqual(chunks, chunkPages(pages, settings));
});

Deno.test("chunkAndEmbed() starts a chunk at each slide of a presentation", async () => {
  const document = LocalDocument.fromPath(`${FIXTURES}slides.pptx`);
  const embedder = new HashEmbedder({ dimension: 64 });
  // Each slide holds less than a quarter of a chunk, which alone would not end one.
  const options = { chunkSize: 500, chunkOverlap: 0 };
  const { chunks } = await chunkAndEmbed(document, { ...options, embedder });
  assert.deepEqual(chunks.map((chunk) => chunk.pageNumbers), [[1], [2], [3]]);
  const pages = await document.extractPages();
  assert.deepEqual(chunkPages(pages, options).map((chunk) => chunk.pageNumbers), [[1, 2, 3]]);
});

Deno.test("chunkAndEmbed() of a long PDF aborted while it is read rejects, and the next one reads", async () => {
  const path = new URL("../fixtures/labelled/clsguide.pdf", import.meta.url).pathname;
  const embedder = new HashEmbedder({ dimension: 64 });
  using threads = watchThreads();
  const controller = new AbortController();
  const posted = threads.nextPost();
  const work = chunkAndEmbed(LocalDocument.fromPath(path), {
    ...settings,
    embedder,
    signal: controller.signal,
  });
  // A reader thread has the document now, and its answer cannot be read before a turn of the loop.
  await posted;
  controller.abort(new Error("no longer wanted while it is read"));
  await assert.rejects(work, /no longer wanted while it is read/);
  assert.equal(threads.replies, 0);
  const { chunks } = await chunkAndEmbed(LocalDocument.fromPath(path), { ...settings, embedder });
  assert.ok(chunks.length > 0);
});

Deno.test("chunkAndEmbed() calls any other embedder here, with the chunks' texts", async () => {
  const document = LocalDocument.fromPath(`${FIXTURES}guide.md`);
  const seen: string[][] = [];
  const embedder: Embedder = {
    id: "test/length",
    dimension: 1,
    embed(texts) {
      seen.push(texts);
      return Promise.resolve(texts.map((text) => new Float32Array([text.length])));
    },
  };
  const { chunks, vectors } = await chunkAndEmbed(document, { ...settings, embedder });
  assert.deepEqual(seen, [chunks.map((chunk) => chunk.text)]);
  assert.deepEqual(vectors.map((vector) => vector[0]), chunks.map((chunk) => chunk.text.length));
});

Deno.test("chunkAndEmbed() embeds here with an embedder that declares no recipe for the worker", async () => {
  const document = LocalDocument.fromPath(`${FIXTURES}guide.md`);
  const seen: string[][] = [];
  class Here extends HashEmbedder {
    override readonly workerRecipe = undefined;
    override embed(texts: string[]): Promise<Float32Array[]> {
      seen.push(texts);
      return super.embed(texts);
    }
  }
  const embedder = new Here({ dimension: 64 });
  const { chunks, vectors } = await chunkAndEmbed(document, { ...settings, embedder });
  assert.deepEqual(seen, [chunks.map((chunk) => chunk.text)]);
  assert.deepEqual(vectors, embedder.embedSync(seen[0]!));
});

Deno.test("chunkAndEmbed() refuses vectors of the wrong number or length", async () => {
  const document = LocalDocument.fromPath(`${FIXTURES}guide.md`);
  const embedder: Embedder = {
    id: "test/short",
    dimension: 2,
    embed: (texts) => Promise.resolve(texts.map(() => new Float32Array(1))),
  };
  await assert.rejects(
    chunkAndEmbed(document, { ...settings, embedder }),
    /The embedder "test\/short" gave 1 vectors for 1 chunks, or vectors not 2 long/,
  );
});

Deno.test("chunkAndEmbed() uses the pages of a document class that reads its own", async () => {
  class Notes extends Document {
    static override readsOwnPages = true;
    override isReadable = () => Promise.resolve(true);
    override read = () => Promise.resolve(new TextEncoder().encode("unused"));
    override extractPages(): Promise<Page[]> {
      return Promise.resolve([{ text: "Page one.", number: 1 }, { text: "Page two.", number: 2 }]);
    }
  }
  const { chunks } = await chunkAndEmbed(new Notes({ name: "notes.txt" }), {
    ...settings,
    embedder: new HashEmbedder(),
  });
  assert.deepEqual(chunks.map((chunk) => chunk.pageNumbers), [[1, 2]]);
});

Deno.test({
  name: "chunkAndEmbed() chunks and embeds below the calling thread's priority",
  ignore: Deno.build.os !== "linux",
  async fn() {
    class Notes extends Document {
      static override readsOwnPages = true;
      override isReadable = () => Promise.resolve(true);
      override read = () => Promise.resolve(new TextEncoder().encode("unused"));
      override extractPages(): Promise<Page[]> {
        return Promise.resolve([{ text: "Page one.", number: 1 }]);
      }
    }
    const before = workerThreads();
    await chunkAndEmbed(new Notes({ name: "notes.txt" }), {
      ...settings,
      embedder: new HashEmbedder(),
    });
    // Test files run beside this one start threads of their own: the indexing worker is among
    // those started meanwhile, a bulk thread.
    const started = [...workerThreads()].filter(([thread]) => !before.has(thread));
    assert.ok(
      started.some(([, nice]) => nice === getPriority() + 10),
      `no thread started below the caller's priority: ${JSON.stringify(started)}`,
    );
  },
});

Deno.test("chunkAndEmbed() reports an unreadable document as Document.extractPages() does", async () => {
  await using dir = await tmpDir();
  const path = await writeFile(dir.path, "fake.pdf", "This is not a PDF.");
  const document = LocalDocument.fromPath(path);
  const expected = await document.extractPages().catch((error) => error);
  assert.ok(expected instanceof SvcError);
  await assert.rejects(
    chunkAndEmbed(document, { ...settings, embedder: new HashEmbedder() }),
    (error) =>
      error instanceof SvcError && error.status === 422 && error.message === expected.message,
  );
});

Deno.test("chunkAndEmbed() stops when its signal aborts, before or during the work", async () => {
  await using dir = await tmpDir();
  const path = await writeFile(dir.path, "long.txt", "Words upon words. ".repeat(10_000));
  const document = LocalDocument.fromPath(path);
  const embedder = new HashEmbedder();
  const signal = AbortSignal.abort(new Error("no longer wanted before the work"));
  await assert.rejects(
    chunkAndEmbed(document, { ...settings, embedder, signal }),
    /no longer wanted before the work/,
  );

  using workers = watchWorkers();
  const controller = new AbortController();
  const posted = workers.nextPost();
  const work = chunkAndEmbed(document, { ...settings, embedder, signal: controller.signal });
  // The worker has the job now, and its answer cannot be read before a turn of the event loop.
  await posted;
  controller.abort(new Error("no longer wanted during the work"));
  await assert.rejects(work, /no longer wanted during the work/);
  assert.equal(workers.replies, 0, "it did not wait for the worker's answer");
});

integration.test("chunkAndEmbed() does not keep the process alive once done", async () => {
  const module = new URL("../../components/indexing/pipeline.ts", import.meta.url).href;
  const script = `
    import { chunkAndEmbed } from ${JSON.stringify(module)};
    import { LocalDocument } from ${
    JSON.stringify(new URL("../../components/core/document.ts", import.meta.url).href)
  };
    import { HashEmbedder } from ${
    JSON.stringify(new URL("../../components/embeddings/hash.ts", import.meta.url).href)
  };
    const { chunks } = await chunkAndEmbed(LocalDocument.fromPath(${
    JSON.stringify(`${FIXTURES}guide.md`)
  }),
      { chunkSize: 30, chunkOverlap: 10, embedder: new HashEmbedder() });
    console.log(chunks.length);
  `;
  const { code, stdout, stderr } = await run(Deno.execPath(), denoArgs("eval", script));
  assert.equal(code, 0, stderr);
  assert.equal(stdout.trim(), "1");
});
