import assert from "node:assert/strict";
import JSZip from "jszip";
import { docxHandler } from "../../components/documents/docx.ts";
import { fixture, refusal } from "./_helpers.ts";

function zip(files: Record<string, string>): Promise<Uint8Array> {
  const archive = new JSZip();
  for (const [path, text] of Object.entries(files)) archive.file(path, text);
  return archive.generateAsync({ type: "uint8array", compression: "DEFLATE" });
}

const NOTES = [
  "Meeting notes",
  "The team met on Tuesday to plan the spring release of the catalogue.",
  "Three decisions were made:",
  "The catalogue ships on the first of April.",
  "Printing moves to the Riverside press.",
  "Photos are taken in the new studio.",
  "Item | Owner | Due\nCover design | Ana | March 3\nPrice list | Ben | March 10",
  "Questions & answers follow in the next meeting.",
].join("\n\n");

Deno.test("`docxHandler` reads .docx files", () => {
  assert.deepEqual(docxHandler.suffixes, [".docx"]);
});

Deno.test("`docxHandler` gives one page of blocks, each table row one line", async () => {
  const before = Object.getOwnPropertyDescriptor(Object.prototype, "__proto__");
  const pages = await docxHandler.extractPages(await fixture("notes.docx"), "notes.docx");
  assert.deepEqual(pages, [{ text: NOTES, number: null }]);
  // The __proto__ accessor mammoth needs while it loads is gone again.
  assert.deepEqual(Object.getOwnPropertyDescriptor(Object.prototype, "__proto__"), before);
  // Deno's behaviour is back: assigning __proto__ does not change the prototype.
  const plain: { __proto__?: unknown } = {};
  plain.__proto__ = Array.prototype;
  assert.equal(Object.getPrototypeOf(plain), Object.prototype);
});

Deno.test("`docxHandler` keeps reading after mammoth has loaded", async () => {
  const bytes = await fixture("notes.docx");
  await docxHandler.extractPages(bytes, "notes.docx");
  const pages = await docxHandler.extractPages(bytes, "again.docx");
  assert.deepEqual(pages, [{ text: NOTES, number: null }]);
});

Deno.test("`docxHandler` writes a nested table into its cell and keeps empty cells", async () => {
  const document = `<?xml version="1.0"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>
<w:tbl><w:tr>
<w:tc><w:p><w:r><w:t>a &amp; b</w:t></w:r></w:p><w:p><w:r><w:t>second</w:t></w:r></w:p></w:tc>
<w:tc><w:p/></w:tc>
<w:tc><w:tbl><w:tr><w:tc><w:p><w:r><w:t>inner 1</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:p><w:r><w:t>inner 2</w:t></w:r></w:p></w:tc></w:tr></w:tbl><w:p/></w:tc>
</w:tr></w:tbl>
<w:p><w:r><w:t>after</w:t><w:br/><w:t>the table</w:t></w:r></w:p>
</w:body></w:document>`;
  const bytes = await zip({ "word/document.xml": document });
  assert.deepEqual(await docxHandler.extractPages(bytes, "nested.docx"), [{
    text: "a & b second |  | inner 1 inner 2\n\nafter\nthe table",
    number: null,
  }]);
});

Deno.test("`docxHandler` refuses a truncated DOCX", async () => {
  await assert.rejects(
    docxHandler.extractPages(await fixture("truncated.docx"), "truncated.docx"),
    refusal('Cannot read "truncated.docx": the file is truncated'),
  );
});

Deno.test("`docxHandler` refuses a DOCX that is really plain text", async () => {
  const bytes = new TextEncoder().encode("Just some text saved as .docx.\n");
  await assert.rejects(
    docxHandler.extractPages(bytes, "plain.docx"),
    refusal('Cannot read "plain.docx": the file is not a ZIP archive (a .docx file is one)'),
  );
});

Deno.test("`docxHandler` refuses an encrypted or legacy Word file", async () => {
  const bytes = new Uint8Array(512);
  bytes.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  await assert.rejects(
    docxHandler.extractPages(bytes, "old.docx"),
    refusal('Cannot read "old.docx": the file is encrypted or in the legacy Office format'),
  );
});

Deno.test("`docxHandler` refuses a ZIP without word/document.xml", async () => {
  const bytes = await zip({ "readme.txt": "hello" });
  await assert.rejects(
    docxHandler.extractPages(bytes, "other.docx"),
    refusal('Cannot read "other.docx": the file is not a Word document'),
  );
});

Deno.test("`docxHandler` refuses a zip bomb before inflating it", async () => {
  const bytes = await fixture("bomb.docx");
  await assert.rejects(
    docxHandler.extractPages(bytes, "bomb.docx"),
    refusal('Cannot read "bomb.docx": the file would inflate to more than 256 MiB'),
  );
});
