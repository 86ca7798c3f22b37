import assert from "node:assert/strict";
import type { PdfTextItem } from "../../../components/documents/pdf/layout.ts";
import { readToUnicode } from "../../../components/documents/pdf/fonts.ts";
import { openPdf } from "../../../components/documents/pdf/open.ts";
import { Lexer, PdfString, Unsupported } from "../../../components/documents/pdf/syntax.ts";
import { DirectPdf } from "../../../components/documents/pdf/direct.ts";
import { openPdfjs } from "../../../components/documents/pdf/pdfjs.ts";
import { fixture } from "../_helpers.ts";
import { pdfOf } from "./_make.ts";
import { labelledPdf } from "./_reference.ts";

/** Every field of every item, as pdfjs gives them. */
function fields(items: readonly PdfTextItem[]): unknown[] {
  return items.map(({ str, transform, width, height, hasEOL }) => [
    str,
    [...transform],
    width,
    height,
    hasEOL,
  ]);
}

async function pdfjsPages(bytes: Uint8Array): Promise<PdfTextItem[][]> {
  await using pdf = await openPdfjs(bytes);
  const pages: PdfTextItem[][] = [];
  for (let number = 1; number <= pdf.pageCount; number++) pages.push(await pdf.page(number));
  return pages;
}

for (const name of ["usrguide.pdf", "grfguide.pdf", "clsguide.pdf"]) {
  Deno.test(`the direct reader reads every page of ${name} itself, item for item as pdfjs`, async () => {
    const bytes = await Deno.readFile(labelledPdf(name));
    const expected = await pdfjsPages(bytes);
    const direct = new DirectPdf(bytes);
    assert.equal(direct.pageCount, expected.length);
    expected.forEach((items, i) => {
      assert.deepEqual(fields(direct.page(i + 1)), fields(items), `page ${i + 1}`);
    });
  });
}

function stream(content: string): string {
  return `<< /Length ${content.length} >>\nstream\n${content}\nendstream`;
}

/**
 * Two pages: the first in a Type 0 font whose text its ToUnicode map gives (read directly), the
 * second in Helvetica, not embedded and without a map (whose text pdfjs takes from its encoding).
 */
const TWO_FONTS = pdfOf([
  "<< /Type /Catalog /Pages 2 0 R >>",
  "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
  "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F1 5 0 R >> >> /Contents 6 0 R >>",
  "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F2 9 0 R >> >> /Contents 10 0 R >>",
  "<< /Type /Font /Subtype /Type0 /BaseFont /Demo /Encoding /Identity-H /DescendantFonts [7 0 R] /ToUnicode 8 0 R >>",
  stream(
    "BT /F1 12 Tf 20 150 Td <0001000200030004> Tj 0 -20 Td [<0001> -900 <0002>] TJ 0 -20 Td (\\000\\004) Tj ET",
  ),
  "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Demo /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 11 0 R /W [1 [500 600 250]] /DW 700 >>",
  stream(
    "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n1 begincodespacerange <0000> <FFFF> endcodespacerange\n" +
      "3 beginbfchar <0001> <0048> <0002> <0069> <0003> <0020> endbfchar\n1 beginbfrange <0004> <0004> <00660069> endbfrange\nendcmap end end",
  ),
  "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
  stream("BT /F2 12 Tf 20 150 Td (Hello there) Tj 0 -20 Td (again) Tj ET"),
  "<< /Type /FontDescriptor /FontName /Demo /Flags 32 /FontBBox [0 -200 1000 800] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 >>",
]);

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

/** The objects of `pdfOf()` with a cross-reference stream of `dict` and `data` in place of its table. */
function pdfWithXrefStream(dict: string, data: string): Uint8Array {
  const text = new TextDecoder().decode(pdfOf(["<< /Type /Catalog /Pages 2 0 R >>"]));
  const body = text.slice(0, text.indexOf("xref\n"));
  return new TextEncoder().encode(
    `${body}2 0 obj\n<< /Type /XRef ${dict} /Root 1 0 R /Length ${data.length} >>\nstream\n` +
      `${data}\nendstream\nendobj\nstartxref\n${body.length}\n%%EOF\n`,
  );
}

Deno.test("the direct reader refuses a cross-reference stream that counts more entries than it holds, naming why", () => {
  // Entries of no bytes, ten million of them: read one by one, each the same, before.
  const empty = pdfWithXrefStream("/W [0 0 0] /Size 10000000", "");
  assert.throws(() => new DirectPdf(empty), {
    name: "Unsupported",
    message: "an xref stream whose entries take no bytes",
  });
  const short = pdfWithXrefStream("/W [1 2 1] /Size 3 /Index [0 3]", "\x01\x00\x09\x00");
  assert.throws(() => new DirectPdf(short), {
    name: "Unsupported",
    message: "an xref stream shorter than its Index counts",
  });
  const odd = pdfWithXrefStream("/W [1 2 1] /Size 3 /Index [0 3 7]", "");
  assert.throws(() => new DirectPdf(odd), {
    name: "Unsupported",
    message: "an xref stream's Index that is not pairs of whole numbers",
  });
});

Deno.test("the lexer reads numbers, strings and names as pdfjs does", () => {
  const tokens = (text: string) => {
    const lexer = new Lexer(new TextEncoder().encode(text));
    const all: unknown[] = [];
    for (let token = lexer.next(); typeof token !== "symbol"; token = lexer.next()) {
      all.push(token instanceof PdfString ? `(${token.bytes})` : token);
    }
    return all;
  };
  assert.deepEqual(tokens("0.001 -.5 3. +7 12 -0 1.23456789"), [
    0.001,
    -0.5,
    3,
    7,
    12,
    -0,
    1.23456789,
  ]);
  assert.deepEqual(tokens("(a\\(b\\)c\\053\\\nd) (x(y)z) (\\7\\101) <48 65 6c6C 6>"), [
    "(a(b)c+d)",
    "(x(y)z)",
    "(\x07A)",
    "(Hell`)",
  ]);
  assert.equal(
    (tokens("/A#20B % a comment\n")[0] as { name: string }).name,
    "A B",
  );
  assert.throws(() => tokens("1.2.3"), Unsupported);
  assert.throws(() => tokens("(unterminated"), Unsupported);
});

Deno.test("readToUnicode() reads a CMap's characters and ranges as pdfjs does", () => {
  const map = readToUnicode(
    new TextEncoder().encode(
      "2 beginbfchar <01> <0041> <02> <D835DC00> endbfchar\n" +
        "2 beginbfrange <10> <12> <00FF> <20> <21> [<0066> <00660069>] endbfrange",
    ),
  );
  assert.deepEqual([...map].sort((a, b) => a[0] - b[0]), [
    [0x01, "A"],
    [0x02, "\u{1D400}"],
    [0x10, "\u00ff"],
    [0x11, "\u0100"],
    [0x12, "\u0101"],
    [0x20, "f"],
    [0x21, "fi"],
  ]);
  assert.throws(
    () =>
      readToUnicode(new TextEncoder().encode("/Other usecmap 1 beginbfchar <01> <41> endbfchar")),
    Unsupported,
  );
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

Deno.test("the lexer reads a string's bytes as they are, those of windows-1252's punctuation too", () => {
  const bytes = new Uint8Array([0x28, ...Array(20).fill(0x61), 0x93, 0x94, 0x80, 0x29]);
  const token = new Lexer(bytes).next();
  assert.ok(token instanceof PdfString);
  assert.deepEqual([...token.bytes].map((c) => c.charCodeAt(0)).slice(-3), [0x93, 0x94, 0x80]);
});

for (const name of ["amsmidx.pdf", "dummy-l.pdf", "helix.pdf"]) {
  Deno.test(`the direct reader reads ${name}, whose fonts have no ToUnicode map, as pdfjs`, async () => {
    const bytes = await fixture(`pdf_fonts/${name}`);
    const expected = await pdfjsPages(bytes);
    const direct = new DirectPdf(bytes);
    assert.equal(direct.pageCount, expected.length);
    expected.forEach((items, i) => {
      assert.deepEqual(fields(direct.page(i + 1)), fields(items), `page ${i + 1}`);
    });
    assert.ok(expected.flat().some((item) => /\w/.test(item.str)), "the pages have text");
  });
}
