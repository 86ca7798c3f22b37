import assert from "node:assert/strict";
import { getPriority } from "node:os";
import { parsePages } from "../../components/documents/parse.ts";
import { ReaderPool } from "../../components/documents/reader_pool.ts";
import { renderView } from "../../components/documents/views.ts";
import { fixture, refusal, zipOf } from "./_helpers.ts";
import { labelledPdf } from "./pdf/_reference.ts";
import { watchThreads, workerNices } from "../source_storages/_threads.ts";

const content = (name: string) => ({
  name,
  format: name.slice(name.lastIndexOf(".")),
  maxSize: 2 ** 28,
});

/**
 * A Word document of `paragraphs` short paragraphs: within the reader's limits, and a tree in
 * mammoth of some hundreds of megabytes.
 */
function shortParagraphs(paragraphs: number): Uint8Array {
  const body = "<w:p><w:r><w:t>a</w:t></w:r></w:p>".repeat(paragraphs);
  return zipOf({
    "word/document.xml": '<?xml version="1.0"?><w:document xmlns:w="http://schemas.' +
      `openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  });
}

Deno.test("`ReaderPool` reads in a thread what parsePages() reads here, one thread for documents one after another", async () => {
  await using pool = new ReaderPool({ threads: 2, heapMb: 512, timeoutSeconds: 60 });
  for (const name of ["report.pdf", "notes.docx", "slides.pptx", "guide.md"]) {
    const bytes = await fixture(name);
    assert.deepEqual(await pool.read(bytes, content(name)), await parsePages(bytes, content(name)));
  }
  assert.equal(pool.size, 1);
  await assert.rejects(
    pool.read(new TextEncoder().encode("not a zip"), content("notes.docx")),
    refusal('Cannot read "notes.docx": the file is not a ZIP archive (a .docx file is one)'),
  );
  assert.equal(pool.size, 1, "a refusal keeps its thread");
});

Deno.test("`ReaderPool` renders in a thread the view renderView() renders here, and refuses what it cannot read", async () => {
  await using pool = new ReaderPool({ threads: 1, heapMb: 512, timeoutSeconds: 60 });
  for (const name of ["report.pdf", "notes.docx", "slides.pptx", "guide.md"]) {
    const bytes = await fixture(name);
    assert.deepEqual(await pool.view(bytes, content(name)), await renderView(bytes, content(name)));
  }
  assert.equal(pool.size, 1, "the views were rendered in the pool's thread");
  await assert.rejects(
    pool.view(await fixture("bomb.docx"), content("bomb.docx")),
    (error: { status: number; message: string }) =>
      error.status === 422 && error.message.startsWith('Cannot read "bomb.docx"'),
  );
});

Deno.test("`ReaderPool` sends a thread the document's bytes alone, and leaves the caller's as they were", async () => {
  await using pool = new ReaderPool({ threads: 1, heapMb: 512, timeoutSeconds: 60 });
  // The document's bytes in the middle of a much larger buffer, as a view of it.
  const text = new TextEncoder().encode("# Notes\n");
  const large = new Uint8Array(16 * 2 ** 20);
  large.set(text, 2 ** 20);
  const bytes = large.subarray(2 ** 20, 2 ** 20 + text.length);
  using threads = watchThreads();
  assert.deepEqual(await pool.read(bytes, content("notes.md")), [{
    text: "# Notes\n",
    number: null,
  }]);
  const [request] = threads.messages as { buffer: ArrayBuffer }[];
  assert.ok(request?.buffer instanceof ArrayBuffer);
  assert.equal(request.buffer.byteLength, text.length);
  assert.deepEqual(bytes, text);
});

Deno.test({
  name: "`ReaderPool` reads in threads below the calling thread's priority",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using pool = new ReaderPool({ threads: 2, heapMb: 256, timeoutSeconds: 60 });
    const notes = new TextEncoder().encode("# Notes\n");
    await Promise.all([pool.read(notes, content("a.md")), pool.read(notes, content("b.md"))]);
    assert.equal(pool.size, 2);
    // A thread's nice value: the higher, the less of a busy core it gets. Workers of earlier
    // tests may still be ending, so this pool's two are counted among the lowered ones.
    const lowered = workerNices().filter((nice) => nice === getPriority() + 10);
    assert.ok(lowered.length >= 2, `${lowered.length} threads below the caller's priority`);
  },
});

Deno.test("`ReaderPool` refuses a document whose thread passes its heap cap, and reads one read beside it", async () => {
  await using pool = new ReaderPool({ threads: 2, heapMb: 128, timeoutSeconds: 300 });
  const big = pool.read(shortParagraphs(150_000), content("big.docx"));
  const small = pool.read(await fixture("notes.docx"), content("notes.docx"));
  assert.equal(pool.size, 2);
  await assert.rejects(
    big,
    refusal('Cannot read "big.docx": reading it needs more than 128 MiB of memory'),
  );
  assert.match((await small)[0]!.text, /^Meeting notes/);
  // The thread that passed its cap is gone; the next document gets a new one.
  assert.deepEqual(await pool.read(await fixture("guide.md"), content("guide.md")), [{
    text: "# Guide\n\nStart the service with `svc api`. Stop it with Ctrl+C.\n",
    number: null,
  }]);
});

Deno.test("`ReaderPool` refuses a document whose reading passes the deadline, and ends its thread", async () => {
  await using pool = new ReaderPool({ threads: 1, heapMb: 512, timeoutSeconds: 0.01 });
  const manual = await Deno.readFile(labelledPdf("clsguide.pdf"));
  await assert.rejects(
    pool.read(manual, content("clsguide.pdf")),
    refusal('Cannot read "clsguide.pdf": reading it takes longer than 0.01 seconds'),
  );
  assert.equal(pool.size, 0);
});

Deno.test("`ReaderPool` stops a document when its signal aborts, waiting or being read", async () => {
  await using pool = new ReaderPool({ threads: 1, heapMb: 512, timeoutSeconds: 60 });
  const manual = await Deno.readFile(labelledPdf("clsguide.pdf"));
  const first = pool.read(manual, content("clsguide.pdf"));
  const waiting = new AbortController();
  const second = pool.read(await fixture("guide.md"), content("guide.md"), waiting);
  waiting.abort(new Error("no longer wanted while it waits"));
  await assert.rejects(second, /no longer wanted while it waits/);
  assert.equal((await first).length, 33);
  assert.equal(pool.size, 1);

  const reading = new AbortController();
  const third = pool.read(manual, content("clsguide.pdf"), reading);
  reading.abort(new Error("no longer wanted while it is read"));
  await assert.rejects(third, /no longer wanted while it is read/);
  assert.equal(pool.size, 0, "its thread is ended, and its work with it");
  assert.equal((await pool.read(manual, content("clsguide.pdf"))).length, 33);
});
