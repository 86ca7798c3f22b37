import assert from "node:assert/strict";
import {
  openPdfPages,
  packPage,
  PdfWorkerError,
  stripePages,
  unpackPage,
} from "../../../components/documents/pdf/split.ts";
import { openPdf } from "../../../components/documents/pdf/open.ts";
import type { PdfTextItem } from "../../../components/documents/pdf/layout.ts";
import { fixture } from "../_helpers.ts";
import { labelledPdf } from "./_reference.ts";

/** What the layout reads of each item of each page. */
function kept(pages: readonly (readonly PdfTextItem[])[]): unknown[] {
  return pages.map((items) =>
    items.map(({ str, transform, width, height, hasEOL }) => [
      str,
      transform[4],
      transform[5],
      width,
      height,
      hasEOL,
    ])
  );
}

/** Every page's items, read on the calling thread alone. */
async function serial(bytes: Uint8Array): Promise<PdfTextItem[][]> {
  await using document = await openPdf(bytes);
  const pages: PdfTextItem[][] = [];
  for (let number = 1; number <= document.pageCount; number++) {
    pages.push(await document.page(number));
  }
  return pages;
}

Deno.test("`stripePages()` gives each thread its turns of pages, every page to one thread", () => {
  const turns = (thread: number) => [...stripePages(10, { thread, threads: 3, stripe: 2 })];
  assert.deepEqual(turns(0), [1, 2, 7, 8]);
  assert.deepEqual(turns(1), [3, 4, 9, 10]);
  assert.deepEqual(turns(2), [5, 6]);
});

Deno.test("`packPage()` and `unpackPage()` keep what the layout reads of each item", async () => {
  const pages = await serial(await fixture("report.pdf"));
  const unpacked = pages.map((items, i) => unpackPage(packPage(i + 1, items)));
  assert.deepEqual(kept(unpacked), kept(pages));
});

Deno.test("`openPdfPages()` gives the manuals' pages in order, however many threads take turns", async () => {
  for (const name of ["grfguide.pdf", "clsguide.pdf"]) {
    const bytes = await Deno.readFile(labelledPdf(name));
    const whole = kept(await serial(bytes));
    for (const [workers, stripe] of [[1, 3], [2, 5], [3, 32]] as const) {
      await using pdf = await openPdfPages(bytes, { workers, stripe });
      assert.deepEqual(kept(await Array.fromAsync(pdf.pages())), whole, `${name} ${workers}`);
      assert.equal(pdf.runningWorkers, 0);
    }
  }
});

Deno.test("`openPdfPages()` rejects with pdfjs's error, by name", async () => {
  await assert.rejects(
    openPdfPages(await fixture("encrypted.pdf"), { workers: 1 }),
    (error: Error) => error.name === "PasswordException",
  );
});

Deno.test("`openPdfPages()`'s pages throw when a worker dies midway, and end the others", async () => {
  const bytes = await Deno.readFile(labelledPdf("grfguide.pdf"));
  await using pdf = await openPdfPages(bytes, {
    workers: 2,
    stripe: 3,
    worker: new URL("./_crashing_worker.ts", import.meta.url),
  });
  const read: number[] = [];
  await assert.rejects(
    async () => {
      for await (const _ of pdf.pages()) read.push(read.length + 1);
    },
    (error: Error) =>
      error instanceof PdfWorkerError &&
      /a worker reading it stopped: .*crashed on purpose/.test(error.message),
  );
  // The calling thread's turn and the two pages the first worker sent before it died.
  assert.deepEqual(read, [1, 2, 3, 4, 5]);
  assert.equal(pdf.runningWorkers, 0);
});

Deno.test("`openPdfPages()` ends its workers when the pages are left midway", async () => {
  const bytes = await Deno.readFile(labelledPdf("clsguide.pdf"));
  const pdf = await openPdfPages(bytes, { workers: 1, stripe: 4 });
  assert.equal(pdf.runningWorkers, 1);
  let read = 0;
  for await (const _ of pdf.pages()) {
    if (++read === 6) break;
  }
  assert.equal(read, 6);
  assert.equal(pdf.runningWorkers, 0);
  await assert.rejects(pdf.pages().next(), /read once/);
});

Deno.test("`openPdfPages()`'s pages reject with the signal's reason once it is aborted", async () => {
  const bytes = await Deno.readFile(labelledPdf("clsguide.pdf"));
  const controller = new AbortController();
  await using pdf = await openPdfPages(bytes, {
    workers: 1,
    stripe: 4,
    signal: controller.signal,
  });
  let read = 0;
  await assert.rejects(
    async () => {
      for await (const _ of pdf.pages()) {
        if (++read === 6) controller.abort(new Error("stopped on purpose"));
      }
    },
    /stopped on purpose/,
  );
  assert.equal(read, 6);
  assert.equal(pdf.runningWorkers, 0);
});
