import assert from "node:assert/strict";
import { Document, supportedSuffixes } from "../../components/core/document.ts";
import type { Page } from "../../components/core/page.ts";
import { docxHandler } from "../../components/documents/docx.ts";
import {
  extractPages,
  handlerOf,
  readPages,
  streamPagesOfBytes,
} from "../../components/documents/pages.ts";
import { pdfHandler } from "../../components/documents/pdf.ts";
import { pptxHandler } from "../../components/documents/pptx.ts";
import { textHandler } from "../../components/documents/text.ts";
import { refusal } from "./_helpers.ts";

/** A document of the given bytes. */
class Bytes extends Document {
  constructor(name: string, readonly bytes: Uint8Array) {
    super({ name });
  }
  override isReadable(): Promise<boolean> {
    return Promise.resolve(true);
  }
  override read(): Promise<Uint8Array> {
    return Promise.resolve(this.bytes);
  }
}

const text = (value: string) => new TextEncoder().encode(value);

Deno.test("every suffix a document may have is read by one handler, and every handler's suffix is one", () => {
  const handlers = [textHandler, pdfHandler, docxHandler, pptxHandler];
  for (const suffix of supportedSuffixes()) {
    assert.ok(handlerOf(suffix).suffixes.includes(suffix), suffix);
  }
  assert.deepEqual(handlers.flatMap((handler) => handler.suffixes).sort(), supportedSuffixes());
  assert.throws(() => handlerOf(".exe"), { status: 500 });
});

Deno.test("readPages() gives the bytes to the handler the document's format names, whatever the case", async () => {
  assert.deepEqual(await readPages(new Bytes("Notes.MD", text("# Notes\n"))), [
    { text: "# Notes\n", number: null },
  ]);
});

Deno.test("readPages() refuses an empty document and one over the size limit, naming it", async () => {
  await assert.rejects(
    readPages(new Bytes("empty.txt", new Uint8Array())),
    refusal('Cannot read "empty.txt": the file is empty'),
  );
  class Small extends Bytes {
    static override maxSize = 1024 * 1024;
  }
  await assert.rejects(
    readPages(new Small("big.txt", new Uint8Array(1024 * 1024 + 1).fill(65))),
    refusal('Cannot read "big.txt": the file is larger than 1 MiB'),
  );
});

Deno.test("extractPages() reads by the document's class when it reads its pages itself", async () => {
  const own: Page[] = [{ text: "known already", number: 7 }];
  class Known extends Bytes {
    static override readsOwnPages = true;
    override extractPages(): Promise<Page[]> {
      return Promise.resolve(own);
    }
  }
  assert.equal(await extractPages(new Known("known.pdf", new Uint8Array())), own);
  assert.deepEqual(await extractPages(new Bytes("plain.txt", text("plain"))), [
    { text: "plain", number: null },
  ]);
});

Deno.test("a document refuses a name whose suffix svc cannot read, when it is made", () => {
  assert.throws(
    () => new Bytes("tool.exe", text("MZ")),
    refusal(
      'Cannot read "tool.exe": the suffix ".exe" is not supported; supported are ' +
        ".docx, .md, .pdf, .pptx, .txt",
    ),
  );
  assert.throws(
    () => new Bytes("README", text("")),
    refusal(
      'Cannot read "README": it has no suffix; supported are .docx, .md, .pdf, .pptx, .txt',
    ),
  );
  assert.equal(new Bytes("Slides.PPTX", text("")).format, ".pptx");
});

Deno.test("streamPagesOfBytes() refuses an empty document and one over the size limit, naming it", async () => {
  const content = { name: "notes.md", format: ".md", maxSize: 4 };
  await assert.rejects(
    streamPagesOfBytes(new Uint8Array(), content).next(),
    refusal('Cannot read "notes.md": the file is empty'),
  );
  await assert.rejects(
    streamPagesOfBytes(text("# Too long"), content).next(),
    refusal('Cannot read "notes.md": the file is larger than 4 bytes'),
  );
});

Deno.test("streamPagesOfBytes() gives a PDF's pages one by one and another format's all at once", async () => {
  const pdf = await Deno.readFile(new URL("../fixtures/report.pdf", import.meta.url));
  const content = { name: "report.pdf", format: ".pdf", maxSize: 2 ** 20 };
  const streamed = await Array.fromAsync(streamPagesOfBytes(pdf, content));
  assert.deepEqual(streamed, await pdfHandler.extractPages(pdf, "report.pdf"));
  const notes = { name: "notes.md", format: ".md", maxSize: 1024 };
  assert.deepEqual(await Array.fromAsync(streamPagesOfBytes(text("# Notes"), notes)), [
    { text: "# Notes", number: null },
  ]);
  await assert.rejects(
    streamPagesOfBytes(text("%PDF-1.7\nnot a PDF\n%%EOF\n"), content).next(),
    refusal('Cannot read "report.pdf": the file is not a valid PDF'),
  );
});
