import assert from "node:assert/strict";
import {
  MAX_CONTENT_STREAMS,
  MAX_PAGE_CONTENT_BYTES,
  MAX_PAGE_CONTENT_STREAMS,
  MAX_PAGE_REPEATS,
  MAX_PAGE_TREE_ENTRIES,
  MAX_PDF_DECODED_BYTES,
  MAX_PDF_PAGES,
  PdfLimitError,
} from "../../../components/documents/pdf/limits.ts";
import { checkPdfStreams } from "../../../components/documents/pdf/streams.ts";
import { DirectPdf } from "../../../components/documents/pdf/direct.ts";
import { openPdfjs } from "../../../components/documents/pdf/pdfjs.ts";
import { readPdfPages } from "../../../components/documents/pdf/handler.ts";
import { refusal } from "../_helpers.ts";
import { flateStream, page, pages, refs } from "./_make.ts";

const HELLO = flateStream("BT /F1 12 Tf 72 700 Td (Hello) Tj ET");

/** Drawing operators, `bytes` long: each is read, none makes text. */
function drawing(bytes: number): Uint8Array {
  return new TextEncoder().encode("0 0 m 10 10 l S\n".repeat(bytes / 16));
}

/**
 * Asserts that the direct reader (opening the file, or reading its pages up to the one numbered
 * `page`), and the guard that runs before pdfjs, refuse the file so.
 */
async function refusedByBoth(bytes: Uint8Array, problem: string, page = 0): Promise<void> {
  assert.throws(() => {
    const direct = new DirectPdf(bytes);
    for (let number = 1; number <= page; number++) direct.page(number);
  }, new PdfLimitError(problem));
  const expected = refusal(`Cannot read "hostile.pdf": ${problem}`);
  await assert.rejects(readPdfPages(bytes, "hostile.pdf"), expected);
  await assert.rejects(checkPdfStreams(bytes, "hostile.pdf"), expected);
}

Deno.test("a page tree that lists one page more than MAX_PAGE_REPEATS times is refused", async () => {
  assert.equal(MAX_PAGE_REPEATS, 100);
  const listed = (times: number) =>
    pages(refs(times, 4, { same: true }), times, [page("5 0 R"), HELLO]);
  await refusedByBoth(listed(200_000), "its page tree lists one page more than 100 times");
  await refusedByBoth(
    listed(MAX_PAGE_REPEATS + 1),
    "its page tree lists one page more than 100 times",
  );
  await checkPdfStreams(listed(MAX_PAGE_REPEATS), "hostile.pdf");
});

Deno.test("a page tree of more than MAX_PAGE_TREE_ENTRIES entries is refused", async () => {
  assert.equal(MAX_PAGE_TREE_ENTRIES, 40_000);
  // Entries that are empty nodes of the tree: no page among them, so no page limit is passed.
  const entries = (count: number) =>
    pages(refs(count, 4), 0, Array(count).fill("<< /Type /Pages /Kids [] /Count 0 >>"));
  await refusedByBoth(
    entries(MAX_PAGE_TREE_ENTRIES + 1),
    "its page tree has more than 40,000 entries",
  );
  await checkPdfStreams(entries(MAX_PAGE_TREE_ENTRIES), "hostile.pdf");
});

Deno.test("a document of more than MAX_PDF_PAGES pages is refused, by the direct reader and by pdfjs", async () => {
  assert.equal(MAX_PDF_PAGES, 20_000);
  const count = MAX_PDF_PAGES + 1;
  const many = pages(refs(count, 4), count, [
    ...Array(count).fill(page(`${4 + count} 0 R`)),
    HELLO,
  ]);
  await assert.rejects(
    readPdfPages(many, "long.pdf"),
    refusal('Cannot read "long.pdf": it has more than 20,000 pages'),
  );
  await assert.rejects(openPdfjs(many), new PdfLimitError("it has more than 20,000 pages"));
});

Deno.test("a page of more than MAX_PAGE_CONTENT_STREAMS content streams is refused", async () => {
  assert.equal(MAX_PAGE_CONTENT_STREAMS, 1_000);
  const streams = (count: number) =>
    pages("4 0 R", 1, [page(`[${refs(count, 5, { same: true })}]`), HELLO]);
  await refusedByBoth(
    streams(MAX_PAGE_CONTENT_STREAMS + 1),
    "a page has more than 1,000 content streams",
    1,
  );
  const [read] = await readPdfPages(streams(MAX_PAGE_CONTENT_STREAMS), "busy.pdf");
  assert.equal(read?.number, 1);
});

Deno.test("a document of more than MAX_CONTENT_STREAMS content streams is refused", async () => {
  assert.equal(MAX_CONTENT_STREAMS, 100_000);
  const count = MAX_CONTENT_STREAMS / MAX_PAGE_CONTENT_STREAMS + 1;
  const bytes = pages(refs(count, 4), count, [
    ...Array(count).fill(page(`[${refs(MAX_PAGE_CONTENT_STREAMS, 4 + count, { same: true })}]`)),
    flateStream(drawing(16)),
  ]);
  await refusedByBoth(bytes, "it has more than 100,000 content streams", count);
});

Deno.test("a page whose content streams inflate to more than MAX_PAGE_CONTENT_BYTES is refused", async () => {
  assert.equal(MAX_PAGE_CONTENT_BYTES, 32 * 2 ** 20);
  // Streams of 1 MiB, which may be compressed any amount.
  const stream = flateStream(drawing(2 ** 20));
  const count = MAX_PAGE_CONTENT_BYTES / 2 ** 20 + 1;
  const bytes = pages("4 0 R", 1, [page(`[${refs(count, 5)}]`), ...Array(count).fill(stream)]);
  await refusedByBoth(bytes, "a page's content inflates to more than 32 MiB", 1);
});

Deno.test("a file whose streams inflate to more than MAX_PDF_DECODED_BYTES together is refused before pdfjs", async () => {
  assert.equal(MAX_PDF_DECODED_BYTES, 128 * 2 ** 20);
  const stream = flateStream(drawing(2 ** 20));
  const count = MAX_PDF_DECODED_BYTES / 2 ** 20 + 1;
  const bytes = pages("4 0 R", 1, [page("5 0 R"), HELLO, ...Array(count).fill(stream)]);
  await assert.rejects(
    checkPdfStreams(bytes, "big.pdf"),
    refusal('Cannot read "big.pdf": the file would inflate to more than 128 MiB'),
  );
});
