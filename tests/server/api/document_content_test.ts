import assert from "node:assert/strict";
import { fileSlice } from "../../../server/api/document_content.ts";
import { tmpDir } from "../../test_utils.ts";
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
