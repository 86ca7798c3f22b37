import assert from "node:assert/strict";
import { SvcError } from "../../components/core/errors.ts";
import { pdfHandler } from "../../components/documents/pdf.ts";
import { fixture, refusal } from "./_helpers.ts";

const REPORT = [
  {
    number: 1,
    text: "The Lindenbaum Bakery opened in 1952 on the corner of Mill\n" +
      "Street and River Road. Its founder, Greta Lindenbaum, baked\n" +
      "rye bread in a wood-fired oven that is still used today.\n" +
      "Every morning the bakery sells about four hundred loaves.",
  },
  {
    number: 2,
    text: "Page two describes the famous winter loaf. It is a sweet\n" +
      "braided bread that is baked only in December.\n" +
      "The secret ingredient is cardamom.\n" +
      "The dough rests for twelve hours before it is braided.",
  },
  {
    number: 3,
    text: "Page three lists the opening hours. The bakery is open\n" +
      "from six in the morning until two in the afternoon,\n" +
      "Tuesday to Sunday, and is closed on Mondays.\n" +
      "Orders for weddings must be placed three weeks ahead.",
  },
];

Deno.test("`pdfHandler` reads .pdf files", () => {
  assert.deepEqual(pdfHandler.suffixes, [".pdf"]);
});

Deno.test("`pdfHandler` gives one numbered page per PDF page, lines kept", async () => {
  assert.deepEqual(
    await pdfHandler.extractPages(await fixture("report.pdf"), "report.pdf"),
    REPORT,
  );
});

Deno.test("`pdfHandler` leaves the caller's bytes usable", async () => {
  const bytes = await fixture("report.pdf");
  const length = bytes.byteLength;
  await pdfHandler.extractPages(bytes, "report.pdf");
  assert.equal(bytes.byteLength, length);
  assert.equal(new TextDecoder().decode(bytes.subarray(0, 5)), "%PDF-");
});

Deno.test("`pdfHandler` refuses an encrypted PDF", async () => {
  await assert.rejects(
    pdfHandler.extractPages(await fixture("encrypted.pdf"), "encrypted.pdf"),
    refusal('Cannot read "encrypted.pdf": the file is encrypted'),
  );
});

Deno.test("`pdfHandler` refuses a PDF cut in half", async () => {
  await assert.rejects(
    pdfHandler.extractPages(await fixture("truncated.pdf"), "truncated.pdf"),
    refusal('Cannot read "truncated.pdf": the file is truncated'),
  );
});

Deno.test("`pdfHandler` refuses a PDF missing only its last bytes, though pdfjs could recover it", async () => {
  const bytes = await fixture("report.pdf");
  await assert.rejects(
    pdfHandler.extractPages(bytes.subarray(0, bytes.length - 30), "report.pdf"),
    refusal('Cannot read "report.pdf": the file is truncated'),
  );
});

Deno.test("`pdfHandler` refuses a file that is not a PDF", async () => {
  await assert.rejects(
    pdfHandler.extractPages(await fixture("not_a_pdf.pdf"), "not_a_pdf.pdf"),
    refusal('Cannot read "not_a_pdf.pdf": the file is not a PDF'),
  );
});

Deno.test("`pdfHandler` finds the PDF header only within the first 1024 bytes", async () => {
  const report = await fixture("report.pdf");
  const late = new Uint8Array(1024 + report.length);
  late.fill(0x20, 0, 1024);
  late.set(report, 1024);
  await assert.rejects(
    pdfHandler.extractPages(late, "late.pdf"),
    refusal('Cannot read "late.pdf": the file is not a PDF'),
  );
  const early = new Uint8Array(1000 + report.length);
  early.fill(0x20, 0, 1000);
  early.set(report, 1000);
  assert.equal((await pdfHandler.extractPages(early, "early.pdf")).length, 3);
});

Deno.test("`pdfHandler` refuses a PDF whose structure pdfjs cannot read, printing nothing", async () => {
  const bytes = new TextEncoder().encode("%PDF-1.7\nnot really a PDF at all\n%%EOF\n");
  const printed: unknown[] = [];
  const saved = { log: console.log, warn: console.warn, error: console.error, info: console.info };
  console.log =
    console.warn =
    console.error =
    console.info =
      (...args) => printed.push(args);
  try {
    await assert.rejects(
      pdfHandler.extractPages(bytes, "broken.pdf"),
      refusal('Cannot read "broken.pdf": the file is not a valid PDF'),
    );
  } finally {
    Object.assign(console, saved);
  }
  assert.deepEqual(printed, []);
});

Deno.test("`pdfHandler` still reads PDFs after refusing bad ones", async () => {
  for (const name of ["encrypted.pdf", "truncated.pdf", "not_a_pdf.pdf"]) {
    await assert.rejects(pdfHandler.extractPages(await fixture(name), name), SvcError);
  }
  assert.deepEqual(
    await pdfHandler.extractPages(await fixture("report.pdf"), "report.pdf"),
    REPORT,
  );
});
