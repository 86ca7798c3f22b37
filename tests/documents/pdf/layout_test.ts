import assert from "node:assert/strict";
import {
  PageLayout,
  pageTexts,
  type PdfTextItem,
} from "../../../components/documents/pdf/layout.ts";
import { openPdf } from "../../../components/documents/pdf/open.ts";
import { labelledPdf } from "./_reference.ts";

async function itemsOf(path: string): Promise<PdfTextItem[][]> {
  await using document = await openPdf(await Deno.readFile(path));
  const pages: PdfTextItem[][] = [];
  for (let number = 1; number <= document.pageCount; number++) {
    pages.push(await document.page(number));
  }
  return pages;
}

/** A line of text at a height of the page, one item. */
function line(str: string, y: number): PdfTextItem {
  return { str, transform: [1, 0, 0, 1, 72, y], width: str.length * 5, height: 10, hasEOL: true };
}

Deno.test("`PageLayout` gives a document within its window as `pageTexts()` does, all at the end", async () => {
  const pages = await itemsOf(labelledPdf("usrguide.pdf"));
  const layout = new PageLayout(pages.length);
  const given = pages.map((items) => layout.push(items));
  assert.deepEqual(given.slice(0, -1).flat(), []);
  assert.deepEqual(layout.end(), []);
  assert.deepEqual(given.at(-1), pageTexts(pages));
});

Deno.test("`PageLayout` gives each page once the window after it came, holding no more", async () => {
  const pages = await itemsOf(labelledPdf("clsguide.pdf"));
  const layout = new PageLayout(pages.length, 8);
  const given: number[] = [];
  pages.forEach((items, i) => {
    given.push(layout.push(items).length);
    // The first 8 pages judge the text block; later, a page waits for the 3 after it, the window
    // of 8 around it being the 4 pages before it, itself and those 3; the last page ends the
    // windows of the pages before it.
    const expected = i === pages.length - 1 ? pages.length : i < 7 ? 0 : i + 1 - 3;
    assert.equal(given.reduce((a, b) => a + b), expected, `after page ${i + 1}`);
  });
  assert.deepEqual(layout.end(), []);
});

Deno.test("`PageLayout` drops a running line judged from the pages around it", () => {
  // Ten pages, each headed "Manual" and numbered at its foot; "Chapter one" heads the first page
  // and the sixth, too far apart to be judged together in a window of four pages.
  const pages = Array.from({ length: 10 }, (_, i) => [
    line("Manual", 800),
    ...(i === 0 || i === 5 || i === 9 ? [line("Chapter one", 780)] : []),
    ...["first", "second", "third"].map((word, at) =>
      line(`The ${word} line of page ${"abcdefghij"[i]}`, 600 - at * 100)
    ),
    line(String(i + 1), 40),
  ]);
  const layout = new PageLayout(pages.length, 4);
  const texts = [...pages.flatMap((items) => layout.push(items)), ...layout.end()];
  const body = (page: string) =>
    ["first", "second", "third"].map((word) => `The ${word} line of page ${page}`).join("\n\n");
  assert.equal(texts[1], body("b"));
  assert.deepEqual([texts[0], texts[5], texts[9]], [
    `Chapter one\n\n${body("a")}`,
    `Chapter one\n\n${body("f")}`,
    `Chapter one\n\n${body("j")}`,
  ]);
  // Over the whole document at once, the same line repeats three times, and is dropped.
  assert.equal(pageTexts(pages)[0], body("a"));
});

Deno.test("`PageLayout` refuses more or fewer pages than the document has", () => {
  const layout = new PageLayout(1);
  layout.push([line("One page", 500)]);
  assert.throws(() => layout.push([]), /more than the document's 1 pages/);
  assert.throws(() => new PageLayout(2).end(), /given 0 of the document's 2 pages/);
});
