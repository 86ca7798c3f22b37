import assert from "node:assert/strict";
import { DirectPdf } from "../../../components/documents/pdf/direct.ts";
import { openPdf } from "../../../components/documents/pdf/open.ts";
import { Unsupported } from "../../../components/documents/pdf/syntax.ts";
import { fixture } from "../_helpers.ts";
import { fields, pdfjsPages } from "./_items.ts";
import { TWO_FONTS } from "./_make.ts";
import { labelledPdf } from "./_reference.ts";

Deno.test("openPdf() reads a page directly and one the direct reader does not know with pdfjs", async () => {
  const direct = new DirectPdf(TWO_FONTS);
  assert.equal(direct.pageCount, 2);
  assert.throws(() => direct.page(2), Unsupported);
  const first = direct.page(1);
  assert.deepEqual(first.map((item) => item.str).filter((str) => str.trim()), [
    "Hi fi",
    "H",
    "i",
    "fi",
  ]);
  const expected = await pdfjsPages(TWO_FONTS);
  assert.deepEqual(fields(first), fields(expected[0]!));
  await using pdf = await openPdf(TWO_FONTS);
  assert.deepEqual(fields(await pdf.page(1)), fields(expected[0]!));
  assert.deepEqual(fields(await pdf.page(2)), fields(expected[1]!));
  assert.deepEqual(expected[1]!.map((item) => [item.str, item.hasEOL]), [
    ["Hello there", true],
    ["again", false],
  ]);
});

Deno.test("openPdf() leaves a file the direct reader does not open to pdfjs, and its errors", async () => {
  assert.throws(() => new DirectPdf(TWO_FONTS.subarray(0, 200)), Unsupported);
  await assert.rejects(openPdf(await fixture("encrypted.pdf")), { name: "PasswordException" });
  // A cross-reference offset that points at the header: pdfjs finds the objects by scanning.
  const text = new TextDecoder().decode(TWO_FONTS);
  const misplaced = new TextEncoder().encode(text.replace(/startxref\n\d+/, "startxref\n0"));
  assert.throws(() => new DirectPdf(misplaced), Unsupported);
  await using pdf = await openPdf(misplaced);
  const page = await pdf.page(1);
  assert.deepEqual(fields(page), fields((await pdfjsPages(TWO_FONTS))[0]!));
  assert.ok(page.some((item) => item.str === "Hi fi"));
});

Deno.test("openPdf() runs its guard once before pdfjs opens the document, and never without it", async () => {
  let guarded = 0;
  const guard = () => Promise.resolve(void guarded++);
  {
    await using pdf = await openPdf(await Deno.readFile(labelledPdf("grfguide.pdf")), { guard });
    for (let number = 1; number <= pdf.pageCount; number++) await pdf.page(number);
  }
  assert.equal(guarded, 0, "a file read directly is not guarded");
  {
    await using pdf = await openPdf(TWO_FONTS, { guard });
    await pdf.page(1);
    assert.equal(guarded, 0);
    await pdf.page(2);
    await pdf.page(2);
  }
  assert.equal(guarded, 1, "guarded once, as pdfjs opens it for the page it reads");
  const refused = new Error("refused");
  await using pdf = await openPdf(TWO_FONTS, { guard: () => Promise.reject(refused) });
  await assert.rejects(pdf.page(2), refused);
  await assert.rejects(
    openPdf(await fixture("encrypted.pdf"), { guard: () => Promise.reject(refused) }),
    refused,
  );
});
