import assert from "node:assert/strict";
import type { PdfTextItem } from "../../../components/documents/pdf/layout.ts";
import { openPdfjs, REOPEN_PAGES } from "../../../components/documents/pdf/pdfjs.ts";
import { fields, pdfjsPages } from "./_items.ts";
import { labelledPdf } from "./_reference.ts";

Deno.test("openPdfjs() opened anew every few pages reads the same items of every page", async () => {
  const bytes = await Deno.readFile(labelledPdf("clsguide.pdf"));
  await using reopened = await openPdfjs(bytes, { reopenEvery: 4 });
  const pages: PdfTextItem[][] = [];
  for (let number = 1; number <= reopened.pageCount; number++) {
    pages.push(await reopened.page(number));
  }
  assert.ok(pages.length > 8, "the document is opened more than twice");
  const once = await pdfjsPages(bytes);
  assert.ok(once.length < REOPEN_PAGES, "opened once");
  assert.deepEqual(pages.map(fields), once.map(fields));
});
