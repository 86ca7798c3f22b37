/**
 * The text items of PDF pages as pdfjs gives them, and what of them the tests compare.
 * @module
 */
import type { PdfTextItem } from "../../../components/documents/pdf/layout.ts";
import { openPdfjs } from "../../../components/documents/pdf/pdfjs.ts";

/** Every field of every item, as pdfjs gives them, for `assert.deepEqual`. */
export function fields(items: readonly PdfTextItem[]): unknown[] {
  return items.map(({ str, transform, width, height, hasEOL }) => [
    str,
    [...transform],
    width,
    height,
    hasEOL,
  ]);
}

/** The items of every page of a PDF, read by pdfjs alone. */
export async function pdfjsPages(bytes: Uint8Array): Promise<PdfTextItem[][]> {
  await using pdf = await openPdfjs(bytes);
  const pages: PdfTextItem[][] = [];
  for (let number = 1; number <= pdf.pageCount; number++) pages.push(await pdf.page(number));
  return pages;
}
