import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { DirectPdf } from "../../../components/documents/pdf/direct.ts";
import { openPdfjs } from "../../../components/documents/pdf/pdfjs.ts";
import { Unsupported } from "../../../components/documents/pdf/syntax.ts";
import { fields, pdfjsPages } from "./_items.ts";
import { pdfOf } from "./_make.ts";
import { fixturePath } from "./_reference.ts";

/** Every PDF of tests/fixtures/ and its folders, as its path in tests/fixtures/, in order. */
async function pdfFixtures(): Promise<string[]> {
  const root = fixturePath("");
  const found: string[] = [];
  const walk = async (folder: string) => {
    for await (const entry of Deno.readDir(folder)) {
      const path = join(folder, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (/\.pdf$/i.test(entry.name)) found.push(relative(root, path));
    }
  };
  await walk(root);
  return found.sort();
}

/**
 * What of the PDF fixtures the direct reader leaves to pdfjs, and why (its `Unsupported`
 * message): a whole file by its path, a page as `path, page N`. A fixture that is not here is
 * read directly, every page; one added to the fixtures is compared by the test below, and fails
 * it until it is read directly or named here.
 */
const LEFT_TO_PDFJS: Readonly<Record<string, string>> = {
  "encrypted.pdf": "an encrypted file",
  "not_a_pdf.pdf": "no startxref",
  "regressions/pdf-flate-text-bomb.pdf": "no cross-reference at its offset",
  "regressions/pdf-unhandled-rejection-pages.pdf": "an object",
  "regressions/pdf-unhandled-rejection-refused.pdf": "a dictionary value that is a keyword",
  "truncated.pdf": "no startxref",
};

Deno.test("the direct reader gives pdfjs's items on every page it reads of every PDF fixture", async () => {
  const left: Record<string, string> = {};
  /** What the message says of each file and page left to pdfjs. */
  const named: string[] = [];
  let compared = 0;
  let leftPages = 0;
  /** How many pages a file the direct reader does not open leaves to pdfjs, or pdfjs's refusal. */
  const pagesLeft = async (bytes: Uint8Array) => {
    try {
      await using pdf = await openPdfjs(bytes);
      leftPages += pdf.pageCount;
      return `${pdf.pageCount} pages`;
    } catch (error) {
      return `refused by pdfjs too, ${(error as Error).name}`;
    }
  };
  const names = await pdfFixtures();
  for (const name of names) {
    const bytes = await Deno.readFile(fixturePath(name));
    let direct: DirectPdf;
    try {
      direct = new DirectPdf(bytes);
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
      left[name] = error.message;
      named.push(`${name} (${await pagesLeft(bytes)}: ${error.message})`);
      continue;
    }
    const expected = await pdfjsPages(bytes);
    assert.equal(direct.pageCount, expected.length, `${name}: the pages pdfjs counts`);
    assert.ok(expected.flat().some((item) => /\w/.test(item.str)), `${name}: the pages have text`);
    expected.forEach((items, i) => {
      const page = `${name}, page ${i + 1}`;
      let read;
      try {
        read = direct.page(i + 1);
      } catch (error) {
        if (!(error instanceof Unsupported)) throw error;
        left[page] = error.message;
        leftPages++;
        named.push(`${page} (${error.message})`);
        return;
      }
      assert.deepEqual(fields(read), fields(items), page);
      compared++;
    });
  }
  const message = `${compared} pages of ${names.length} PDF fixtures compared with pdfjs; ` +
    `${leftPages} pages left to pdfjs: ${named.join("; ")}`;
  assert.deepEqual(left, LEFT_TO_PDFJS, message);
  assert.ok(names.includes("labelled/clsguide.pdf") && compared > 0, message);
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
