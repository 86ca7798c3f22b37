import assert from "node:assert/strict";
import { packPart, readPdfItemsSplit, unpackPart } from "../../components/documents/_pdf_split.ts";
import { readPdfItems } from "../../components/documents/_pdfjs.ts";
import { fixture } from "./_helpers.ts";

Deno.test("`packPart()` and `unpackPart()` keep what the layout reads of each item", async () => {
  const part = await readPdfItems(await fixture("report.pdf"));
  const unpacked = unpackPart(packPart(part));
  assert.deepEqual(
    unpacked.map((items) =>
      items.map((
        { str, transform, width, height, hasEOL },
      ) => [str, transform[4], transform[5], width, height, hasEOL])
    ),
    part.pages.map((items) =>
      items.map((
        { str, transform, width, height, hasEOL },
      ) => [str, transform[4], transform[5], width, height, hasEOL])
    ),
  );
});

Deno.test("`readPdfItemsSplit()` reads every page once, in order, however many parts", async () => {
  const bytes = await fixture("report.pdf");
  const whole = unpackPart(packPart(await readPdfItems(bytes)));
  for (const parts of [1, 2, 3, 5]) {
    assert.deepEqual(await readPdfItemsSplit(bytes, { parts }), whole, `${parts} parts`);
  }
});

Deno.test("`readPdfItemsSplit()` rejects with pdfjs's error, by name", async () => {
  await assert.rejects(
    readPdfItemsSplit(await fixture("encrypted.pdf"), { parts: 2 }),
    (error: Error) => error.name === "PasswordException",
  );
});

Deno.test("`readPdfItemsSplit()` rejects when a worker crashes, and ends the others", async () => {
  await assert.rejects(
    readPdfItemsSplit(await fixture("report.pdf"), {
      parts: 2,
      worker: new URL("./_crashing_pdf_worker.ts", import.meta.url),
    }),
    /A worker reading the PDF stopped: .*crashed on purpose/,
  );
});
