import assert from "node:assert/strict";
import JSZip from "jszip";
import {
  docxHandler,
  MAX_DOCX_ELEMENTS,
  MAX_DOCX_PARAGRAPHS,
  MAX_DOCX_RUNS,
} from "../../components/documents/docx.ts";
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

/** notes.docx with `word/document.xml` (and any other part) as given. */
async function withParts(parts: Record<string, string>): Promise<Uint8Array> {
  const archive = await JSZip.loadAsync(await fixture("notes.docx"));
  for (const [path, xml] of Object.entries(parts)) archive.file(path, xml);
  return archive.generateAsync({ type: "uint8array", compression: "DEFLATE" });
}

/** A `word/document.xml` whose body is `body`. */
const documentXml = (body: string) =>
  '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/' +
  `wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`;

Deno.test("`docxHandler` refuses a part of more paragraphs, runs or elements than its limits", async () => {
  assert.deepEqual([MAX_DOCX_PARAGRAPHS, MAX_DOCX_RUNS, MAX_DOCX_ELEMENTS], [
    200_000,
    500_000,
    1_000_000,
  ]);
  const cases: [string, string][] = [
    ["<w:p/>".repeat(MAX_DOCX_PARAGRAPHS + 1), "paragraphs"],
    [`<w:p>${"<w:r/>".repeat(MAX_DOCX_RUNS + 1)}</w:p>`, "runs"],
    [`<w:p><w:r><w:rPr>${"<w:b/>".repeat(MAX_DOCX_ELEMENTS)}</w:rPr></w:r></w:p>`, "elements"],
  ];
  for (const [body, what] of cases) {
    const bytes = await withParts({ "word/document.xml": documentXml(body) });
    await assert.rejects(
      docxHandler.extractPages(bytes, "big.docx"),
      refusal(
        `Cannot read "big.docx": the part "word/document.xml" has more than ${
          {
            paragraphs: "200,000 paragraphs",
            runs: "500,000 runs",
            elements: "1,000,000 elements",
          }[
            what
          ]
        }`,
      ),
    );
  }
  // One short of each limit still reads.
  const most = `${"<w:p/>".repeat(MAX_DOCX_PARAGRAPHS - 1)}<w:p>${
    "<w:r><w:t>x</w:t></w:r>".repeat(100)
  }</w:p>`;
  const [page] = await docxHandler.extractPages(
    await withParts({ "word/document.xml": documentXml(most) }),
    "long.docx",
  );
  assert.equal(page?.text, "x".repeat(100));
});

Deno.test("`docxHandler` refuses a file whose parts have more elements than the limit together", async () => {
  const half = `<w:p><w:r><w:rPr>${"<w:b/>".repeat(MAX_DOCX_ELEMENTS / 2)}</w:rPr></w:r></w:p>`;
  const bytes = await withParts({
    "word/document.xml": documentXml(half),
    "word/footnotes.xml": documentXml(half),
  });
  await assert.rejects(
    docxHandler.extractPages(bytes, "split.docx"),
    refusal('Cannot read "split.docx": its XML parts have more than 1,000,000 elements'),
  );
});
