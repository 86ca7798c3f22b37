import assert from "node:assert/strict";
import { Document } from "../../components/core/document.ts";
import type { Page } from "../../components/core/page.ts";
import { extractPages, pagesOfBytes, readPages } from "../../components/documents/pages.ts";
import { parsePages } from "../../components/documents/parse.ts";
import { readerPool } from "../../components/documents/reader_pool.ts";
import { fixture, refusal } from "./_helpers.ts";

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

Deno.test("pagesOfBytes() reads in a reader thread what the handler reads, and its refusals", async () => {
  const pdf = await fixture("report.pdf");
  const content = { name: "report.pdf", format: ".pdf", maxSize: 2 ** 20 };
  assert.deepEqual(await pagesOfBytes(pdf, content), await parsePages(pdf, content));
  await assert.rejects(
    pagesOfBytes(text("%PDF-1.7\nnot a PDF\n%%EOF\n"), content),
    refusal('Cannot read "report.pdf": the file is not a valid PDF'),
  );
});

Deno.test("pagesOfBytes() refuses an empty document and one over the size limit before a thread reads it", async () => {
  const pool = readerPool();
  const threads = pool.size;
  const content = { name: "notes.md", format: ".md", maxSize: 4 };
  await assert.rejects(
    pagesOfBytes(new Uint8Array(), content),
    refusal('Cannot read "notes.md": the file is empty'),
  );
  await assert.rejects(
    pagesOfBytes(text("# Too long"), content),
    refusal('Cannot read "notes.md": the file is larger than 4 bytes'),
  );
  assert.equal(pool.size, threads);
});
