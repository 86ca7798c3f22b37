import assert from "node:assert/strict";
import { supportedSuffixes } from "../../components/core/document.ts";
import { docxHandler } from "../../components/documents/docx.ts";
import { MAX_DOCUMENT_CHARACTERS } from "../../components/documents/limits.ts";
import { handlerOf, isSlides, parsePages } from "../../components/documents/parse.ts";
import { pdfHandler } from "../../components/documents/pdf/mod.ts";
import { pptxHandler } from "../../components/documents/pptx.ts";
import { textHandler } from "../../components/documents/text.ts";
import { fixture, refusal } from "./_helpers.ts";

const text = (value: string) => new TextEncoder().encode(value);

Deno.test("every suffix a document may have is read by one handler, and every handler's suffix is one", () => {
  const handlers = [textHandler, pdfHandler, docxHandler, pptxHandler];
  for (const suffix of supportedSuffixes()) {
    assert.ok(handlerOf(suffix).suffixes.includes(suffix), suffix);
  }
  assert.deepEqual(handlers.flatMap((handler) => handler.suffixes).sort(), supportedSuffixes());
  assert.throws(() => handlerOf(".exe"), { status: 500 });
  assert.deepEqual(supportedSuffixes().filter(isSlides), [".pptx"]);
});

Deno.test("parsePages() refuses an empty document and one over the size limit, naming it", async () => {
  const content = { name: "notes.md", format: ".md", maxSize: 4 };
  await assert.rejects(
    parsePages(new Uint8Array(), content),
    refusal('Cannot read "notes.md": the file is empty'),
  );
  await assert.rejects(
    parsePages(text("# Too long"), content),
    refusal('Cannot read "notes.md": the file is larger than 4 bytes'),
  );
});

Deno.test("parsePages() gives a PDF's pages as its handler reads them, and its refusals", async () => {
  const pdf = await fixture("report.pdf");
  const content = { name: "report.pdf", format: ".pdf", maxSize: 2 ** 20 };
  assert.deepEqual(
    await parsePages(pdf, content),
    await pdfHandler.extractPages(pdf, "report.pdf"),
  );
  const notes = { name: "notes.md", format: ".md", maxSize: 1024 };
  assert.deepEqual(await parsePages(text("# Notes"), notes), [{ text: "# Notes", number: null }]);
  await assert.rejects(
    parsePages(text("%PDF-1.7\nnot a PDF\n%%EOF\n"), content),
    refusal('Cannot read "report.pdf": the file is not a valid PDF'),
  );
});

Deno.test("parsePages() refuses a document of more text than MAX_DOCUMENT_CHARACTERS, at the page that passes it", async () => {
  // Pages of a PDF come one by one: a handler that would read on is stopped at the page past it.
  let read = 0;
  const page = "x".repeat(MAX_DOCUMENT_CHARACTERS / 4);
  const endless = {
    ...pdfHandler,
    async *streamPages() {
      for (;;) {
        read++;
        yield await Promise.resolve({ text: page, number: read });
      }
    },
  };
  const original = pdfHandler.streamPages;
  Object.assign(pdfHandler, { streamPages: endless.streamPages });
  try {
    await assert.rejects(
      parsePages(text("%PDF-1.7"), { name: "long.pdf", format: ".pdf", maxSize: 2 ** 20 }),
      refusal(
        `Cannot read "long.pdf": it holds more than ${
          MAX_DOCUMENT_CHARACTERS.toLocaleString("en-US")
        } characters of text`,
      ),
    );
  } finally {
    Object.assign(pdfHandler, { streamPages: original });
  }
  assert.equal(read, 5);
});
