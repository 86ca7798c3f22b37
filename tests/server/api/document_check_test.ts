import assert from "node:assert/strict";
import { FIXTURES } from "../../test_utils.ts";
import { testApi } from "./_api.ts";

Deno.test("GET /documents/{id}/check reads an uploaded document and answers its page count", async () => {
  await using api = await testApi();
  const { document } = await api.upload("report.pdf", await Deno.readFile(`${FIXTURES}report.pdf`));
  const response = await api.call("GET", `/documents/${document.id}/check`);
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { pages: 3 });
  const { document: note } = await api.upload("notes.md", "# Notes\n\nShort.");
  assert.deepEqual(await (await api.call("GET", `/documents/${note.id}/check`)).json(), {
    pages: 1,
  });
});

Deno.test("GET /documents/{id}/check names a file svc cannot read as soon as it is uploaded", async () => {
  await using api = await testApi();
  for (const name of ["not_a_pdf.pdf", "truncated.pdf", "encrypted.pdf", "truncated.docx"]) {
    const { document } = await api.upload(name, await Deno.readFile(`${FIXTURES}${name}`));
    const response = await api.call("GET", `/documents/${document.id}/check`);
    assert.equal(response.status, 422, name);
    const { error } = await response.json();
    assert.match(error.message, new RegExp(`^Cannot read "${name.replace(".", "\\.")}": `), name);
  }
});

Deno.test("GET /documents/{id}/check answers 404 for another user's document and one without its file", async () => {
  await using api = await testApi();
  const { document } = await api.upload("notes.md", "# Notes");
  const registered = await (await api.call("POST", "/document", { name: "later.md" })).json();
  const missing = await api.call("GET", `/documents/${registered.document.id}/check`);
  assert.equal(missing.status, 404);
  assert.match((await missing.json()).error.message, /its file was not uploaded/);
  await api.as("bob");
  const other = await api.call("GET", `/documents/${document.id}/check`);
  assert.equal(other.status, 404);
  await other.body?.cancel();
});
