import assert from "node:assert/strict";
import { fileSlice } from "../../../server/api/document_content.ts";
import { tmpDir } from "../../test_utils.ts";
import { zipOf } from "../../documents/_helpers.ts";
import { testApi } from "./_api.ts";

const FIXTURES = new URL("../../fixtures/", import.meta.url);
const REPORT = await Deno.readFile(new URL("report.pdf", FIXTURES));

Deno.test("GET /documents/{id}/content gives the owner the file as uploaded, with its type, length and ETag", async () => {
  await using api = await testApi();
  const { document } = await api.upload("Report ü.pdf", REPORT);
  const response = await api.call("GET", `/documents/${document.id}/content`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "application/pdf");
  assert.equal(response.headers.get("content-length"), String(REPORT.length));
  assert.equal(response.headers.get("accept-ranges"), "bytes");
  assert.match(response.headers.get("etag")!, /^"[^"]+"$/);
  assert.equal(
    response.headers.get("content-disposition"),
    `inline; filename="Report _.pdf"; filename*=UTF-8''Report%20%C3%BC.pdf`,
  );
  assert.deepEqual(new Uint8Array(await response.arrayBuffer()), REPORT);
});

Deno.test("GET /documents/{id}/content names the type of each format svc reads", async () => {
  await using api = await testApi();
  const types: Record<string, string> = {
    "notes.docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "slides.pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "guide.md": "text/markdown; charset=utf-8",
    "latin1.txt": "text/plain; charset=utf-8",
    "REPORT.PDF": "application/pdf",
  };
  for (const [name, type] of Object.entries(types)) {
    const bytes = await Deno.readFile(new URL(name.toLowerCase(), FIXTURES));
    const { document } = await api.upload(name, bytes);
    const response = await api.call("GET", `/documents/${document.id}/content`);
    assert.equal(response.headers.get("content-type"), type, name);
    assert.deepEqual(new Uint8Array(await response.arrayBuffer()), bytes, name);
  }
});

Deno.test("GET /documents/{id}/content is 404 for another user's document, an unknown one and one not uploaded", async () => {
  await using api = await testApi();
  const { document } = await api.upload("report.pdf", REPORT);
  const registered = await (await api.call("POST", "/document", { name: "later.pdf" })).json();
  const notUploaded = await api.call("GET", `/documents/${registered.document.id}/content`);
  assert.equal(notUploaded.status, 404);
  assert.match((await notUploaded.json()).error.message, /was not uploaded/);
  await api.as("grace");
  for (const id of [document.id, "no-such-document"]) {
    for (const what of ["content", "pages"]) {
      const response = await api.call("GET", `/documents/${id}/${what}`);
      assert.equal(response.status, 404, `${what} of ${id}`);
      const { error } = await response.json();
      assert.ok(!error.message.includes("report.pdf"), "the name is not revealed");
    }
  }
  const anonymous = await api.app.request(`http://svc.test/documents/${document.id}/content`);
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
});

Deno.test("GET /documents/{id}/content answers a Range with 206 and that part only", async () => {
  await using api = await testApi();
  const { document } = await api.upload("report.pdf", REPORT);
  const path = `/documents/${document.id}/content`;
  const size = REPORT.length;
  const cases: [string, number, number][] = [
    ["bytes=0-9", 0, 9],
    ["bytes=100-", 100, size - 1],
    ["bytes=-20", size - 20, size - 1],
    [`bytes=${size - 5}-${size + 100}`, size - 5, size - 1],
  ];
  for (const [range, start, end] of cases) {
    const response = await api.call("GET", path, undefined, { range });
    assert.equal(response.status, 206, range);
    assert.equal(response.headers.get("content-range"), `bytes ${start}-${end}/${size}`, range);
    assert.equal(response.headers.get("content-length"), String(end - start + 1), range);
    assert.equal(response.headers.get("content-type"), "application/pdf", range);
    assert.deepEqual(
      new Uint8Array(await response.arrayBuffer()),
      REPORT.slice(start, end + 1),
      range,
    );
  }
  // Several ranges: the whole file, which HTTP allows.
  const several = await api.call("GET", path, undefined, { range: "bytes=0-1,4-5" });
  assert.equal(several.status, 200);
  assert.equal((await several.arrayBuffer()).byteLength, size);
});

Deno.test("GET /documents/{id}/content answers a range past the end with 416 and the size", async () => {
  await using api = await testApi();
  const { document } = await api.upload("report.pdf", REPORT);
  const response = await api.call("GET", `/documents/${document.id}/content`, undefined, {
    range: `bytes=${REPORT.length}-`,
  });
  assert.equal(response.status, 416);
  assert.equal(response.headers.get("content-range"), `bytes */${REPORT.length}`);
  assert.match((await response.json()).error.message, /outside the document/);
});

Deno.test("GET /documents/{id}/content answers 304 to its ETag, and If-Range with another ETag with the whole file", async () => {
  await using api = await testApi();
  const { document } = await api.upload("report.pdf", REPORT);
  const path = `/documents/${document.id}/content`;
  const first = await api.call("GET", path);
  await first.body?.cancel();
  const etag = first.headers.get("etag")!;
  const again = await api.call("GET", path, undefined, { "if-none-match": `W/"x", ${etag}` });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get("etag"), etag);
  assert.equal(await again.text(), "");
  const changed = await api.call("GET", path, undefined, {
    range: "bytes=0-9",
    "if-range": '"an-older-copy"',
  });
  assert.equal(changed.status, 200);
  assert.equal((await changed.arrayBuffer()).byteLength, REPORT.length);
  const same = await api.call("GET", path, undefined, { range: "bytes=0-9", "if-range": etag });
  assert.equal(same.status, 206);
  assert.equal((await same.arrayBuffer()).byteLength, 10);
});

Deno.test("GET /documents/{id}/content lets a page of an allowed origin read its range headers", async () => {
  await using api = await testApi();
  const { document } = await api.upload("report.pdf", REPORT);
  const response = await api.call("GET", `/documents/${document.id}/content`, undefined, {
    origin: "http://127.0.0.1:31477",
    range: "bytes=0-3",
  });
  assert.equal(response.status, 206);
  assert.equal(response.headers.get("access-control-allow-origin"), "http://127.0.0.1:31477");
  const exposed = response.headers.get("access-control-expose-headers")!.toLowerCase();
  for (const header of ["content-range", "accept-ranges", "etag", "content-disposition"]) {
    assert.ok(exposed.includes(header), header);
  }
  await response.body?.cancel();
});

Deno.test("HEAD /documents/{id}/content gives the headers without opening the file", async () => {
  await using api = await testApi();
  const { document } = await api.upload("report.pdf", REPORT);
  const response = await api.call("HEAD", `/documents/${document.id}/content`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-length"), String(REPORT.length));
  assert.equal(await response.text(), "");
});

Deno.test("GET /documents/{id}/content closes the file when the client leaves halfway", async () => {
  await using api = await testApi();
  const big = new Uint8Array(1024 * 1024).fill(65);
  const { document } = await api.upload("big.txt", big);
  const response = await api.call("GET", `/documents/${document.id}/content`);
  const reader = response.body!.getReader();
  const { value } = await reader.read();
  assert.ok(value && value.length > 0 && value.length < big.length);
  // The test's resource sanitizer fails it if the file stays open.
  await reader.cancel();
});

Deno.test("fileSlice() errors when the file is shorter than it was, and closes it", async () => {
  await using dir = await tmpDir();
  const path = `${dir.path}/cut.txt`;
  await Deno.writeTextFile(path, "0123456789");
  const stream = fileSlice(await Deno.open(path), 4, 100, { id: "d1" });
  const reader = stream.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), "456789");
  await assert.rejects(reader.read(), /The file of the document "d1" ended 94 bytes early/);
});

Deno.test("GET /documents/{id}/pages gives each page's number and the text svc read from it", async () => {
  await using api = await testApi();
  const { document: pdf } = await api.upload("report.pdf", REPORT);
  const { pages } = await (await api.call("GET", `/documents/${pdf.id}/pages`)).json();
  assert.deepEqual(pages.map((page: { number: number }) => page.number), [1, 2, 3]);
  assert.match(pages[1].text, /The secret ingredient is cardamom\./);
  const { document: notes } = await api.upload("notes.md", "# Notes\n\nRye and *cardamom*.\n");
  const markdown = await (await api.call("GET", `/documents/${notes.id}/pages`)).json();
  assert.deepEqual(markdown, {
    pages: [{ number: null, text: "# Notes\n\nRye and *cardamom*.\n" }],
  });
});

Deno.test("GET /documents/{id}/pages names a document that cannot be read", async () => {
  await using api = await testApi();
  const { document } = await api.upload("broken.pdf", new TextEncoder().encode("not a PDF"));
  const response = await api.call("GET", `/documents/${document.id}/pages`);
  assert.equal(response.status, 422);
  assert.match((await response.json()).error.message, /broken\.pdf/);
});

/** The text of an HTML fragment: its tags out, its five entities read. */
function htmlText(html: string): string {
  return html.replace(/<[^>]*>/g, "").replaceAll("&lt;", "<").replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"').replaceAll("&amp;", "&");
}

Deno.test("GET /documents/{id}/view shows a Word document as sanitised HTML whose blocks are found in the text svc indexes", async () => {
  await using api = await testApi();
  const { document } = await api.upload(
    "notes.docx",
    await Deno.readFile(new URL("notes.docx", FIXTURES)),
  );
  const response = await api.call("GET", `/documents/${document.id}/view`);
  assert.equal(response.status, 200);
  const view = await response.json();
  assert.equal(view.format, "docx");
  const pages = await (await api.call("GET", `/documents/${document.id}/pages`)).json();
  assert.equal(view.text, pages.pages[0].text, "the text as indexed");
  assert.match(view.html, /^<h1 data-start="0" data-end="13">Meeting notes<\/h1>/);
  assert.match(view.html, /<ul><li [^>]*>The catalogue ships/);
  // Each located element holds, as text, the part of the text its place names.
  const located = [
    ...view.html.matchAll(/<(p|h1|li) data-start="(\d+)" data-end="(\d+)">(.*?)<\/\1>/g),
  ];
  assert.ok(located.length >= 6);
  for (const [, , start, end, inner] of located) {
    assert.equal(view.text.slice(Number(start), Number(end)), htmlText(inner!));
  }
  const table = /<table data-start="(\d+)" data-end="(\d+)">/.exec(view.html)!;
  assert.equal(
    view.text.slice(Number(table[1]), Number(table[2])),
    "Item | Owner | Due\nCover design | Ana | March 3\nPrice list | Ben | March 10",
  );

  // The same view again is not rendered again for a client that keeps it.
  const etag = response.headers.get("etag")!;
  const kept = await api.call("GET", `/documents/${document.id}/view`, undefined, {
    "if-none-match": etag,
  });
  assert.equal(kept.status, 304);
  await api.as("bob");
  assert.equal((await api.call("GET", `/documents/${document.id}/view`)).status, 404);
});

Deno.test("GET /documents/{id}/view keeps a Word document's web links and drops scripts, other links and images", async () => {
  await using api = await testApi();
  const w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ' +
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
  const link = (id: string, text: string) =>
    `<w:hyperlink r:id="${id}"><w:r><w:t>${text}</w:t></w:r></w:hyperlink>`;
  const bytes = zipOf({
    "word/document.xml": `<?xml version="1.0"?><w:document ${w}><w:body>` +
      `<w:p><w:r><w:t>&lt;script&gt;alert(1)&lt;/script&gt; and </w:t></w:r>` +
      `${link("rBad", "bad")}<w:r><w:t> and </w:t></w:r>${link("rGood", "good")}</w:p>` +
      "</w:body></w:document>",
    "word/_rels/document.xml.rels": '<?xml version="1.0"?><Relationships xmlns="http://schemas.' +
      'openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rBad" Type="http://schemas.openxmlformats.org/officeDocument/2006/' +
      'relationships/hyperlink" Target="javascript:alert(2)" TargetMode="External"/>' +
      '<Relationship Id="rGood" Type="http://schemas.openxmlformats.org/officeDocument/2006/' +
      'relationships/hyperlink" Target="https://example.com/?a=1&amp;b=&quot;2&quot;" ' +
      'TargetMode="External"/></Relationships>',
  });
  const { document } = await api.upload("links.docx", bytes);
  const view = await (await api.call("GET", `/documents/${document.id}/view`)).json();
  assert.equal(
    view.html,
    '<p data-start="0" data-end="42">&lt;script&gt;alert(1)&lt;/script&gt; and bad and ' +
      '<a href="https://example.com/?a=1&amp;b=&quot;2&quot;">good</a></p>',
  );
  assert.equal(view.text, "<script>alert(1)</script> and bad and good");
});

Deno.test("GET /documents/{id}/view shows a presentation as its slides, Markdown and text as text, and a PDF by its format", async () => {
  await using api = await testApi();
  const upload = async (name: string) =>
    (await api.upload(name, await Deno.readFile(new URL(name, FIXTURES)))).document;
  const view = async (document: { id: string }) =>
    await (await api.call("GET", `/documents/${document.id}/view`)).json();

  const slides = await upload("slides.pptx");
  const deck = await view(slides);
  const pages = (await (await api.call("GET", `/documents/${slides.id}/pages`)).json()).pages;
  assert.equal(deck.format, "pptx");
  assert.deepEqual(deck.slides.map((s: { number: number }) => s.number), [1, 2, 3]);
  assert.deepEqual(
    deck.slides.map((s: { text: string }) => s.text),
    pages.map((p: { text: string }) => p.text),
  );
  const harvest = deck.slides[1];
  assert.equal(harvest.title, "Harvest");
  assert.deepEqual(harvest.blocks.map((b: { kind: string }) => b.kind), ["title", "table"]);
  assert.deepEqual(harvest.blocks[1].rows[1], ["Tomatoes", "120", "North"]);
  for (const block of harvest.blocks) {
    const shown = block.kind === "table"
      ? block.rows.map((row: string[]) => row.join(" | ")).join("\n")
      : block.text;
    assert.equal(harvest.text.slice(block.start, block.end), shown);
  }

  // Text as svc reads it: without the guide's byte order mark, Latin-1 decoded.
  const indexed = async (document: { id: string }) =>
    (await (await api.call("GET", `/documents/${document.id}/pages`)).json()).pages[0].text;
  const guide = await upload("guide.md");
  const markdown = await view(guide);
  assert.equal(markdown.format, "markdown");
  assert.equal(markdown.text, await indexed(guide));
  assert.match(markdown.text, /^# Guide\n/);
  const latin1 = await upload("latin1.txt");
  const text = await view(latin1);
  assert.equal(text.format, "text");
  assert.equal(text.text, await indexed(latin1));
  assert.deepEqual(await view(await upload("report.pdf")), { format: "pdf" });
});
