/**
 * PDF documents, read with the legacy build of pdfjs-dist.
 * @module
 */
import { unreadable } from "../core/errors.ts";
import type { Page } from "../core/page.ts";
import { pageTexts } from "./_pdf_layout.ts";
import { readPdfItemsSplit } from "./_pdf_split.ts";
import { readPdfItems } from "./_pdfjs.ts";
import { checkPdfStreams } from "./_pdf_streams.ts";
import type { DocumentHandler } from "./handler.ts";

/**
 * Reads `.pdf` files into one numbered page per PDF page, from 1. Each page's text is its
 * paragraphs, a blank line between two, judged from where the text stands: the lines of a paragraph
 * are joined, a word hyphenated across two lines is whole again, a heading is a paragraph of its
 * own, and the running headers, footers and page numbers that repeat across pages are left out.
 *
 * A file is refused with a 422 when it does not start with `%PDF-` within its first 1024 bytes
 * ("the file is not a PDF"), lacks `%%EOF` in its last 1024 bytes ("the file is truncated"), needs a
 * password ("the file is encrypted"), has a stream that inflates too far (see
 * `checkPdfStreams`), or pdfjs cannot read its structure ("the file is not a valid PDF").
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pdfHandler } from "./pdf.ts";
 * const pages = await pdfHandler.extractPages(await Deno.readFile("tests/fixtures/report.pdf"), "report.pdf");
 * assert(pages[1]?.number === 2 && pages[1]?.text.includes("cardamom"));
 * ```
 */
export const pdfHandler: DocumentHandler = {
  suffixes: [".pdf"],
  extractPages: extractPdfPages,
};

/** Options of {@linkcode readPdfPages}. */
export interface ReadPdfOptions {
  /**
   * How many workers read the pages beside the calling thread, each one run of them, each started
   * for this document and ended with it; 0 reads them all on the calling thread. Each worker loads
   * pdfjs and opens the document again, so a split costs more processor time and memory in all,
   * and is quicker only for a long document on cores that would otherwise be idle
   * (`bench/pdf_bench.ts` measures it).
   * @default {0}
   */
  workers?: number;
}

/**
 * Reads a PDF as {@linkcode pdfHandler} does, with the pages read on the calling thread or split
 * across workers: the texts are the same either way.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readPdfPages } from "./pdf.ts";
 * const bytes = await Deno.readFile("tests/fixtures/report.pdf");
 * const pages = await readPdfPages(bytes, "report.pdf", { workers: 1 });
 * assert.deepEqual(pages, await readPdfPages(bytes, "report.pdf", { workers: 0 }));
 * ```
 */
export async function readPdfPages(
  bytes: Uint8Array,
  name: string,
  options: ReadPdfOptions = {},
): Promise<Page[]> {
  if (!latin1(bytes.subarray(0, 1024)).includes("%PDF-")) {
    throw unreadable(name, "the file is not a PDF");
  }
  // pdfjs rebuilds the cross-reference table of a file that was cut off, and reads whatever pages
  // survive: all of them when only the last bytes are missing, some when more is. Indexing such a
  // file would silently lose pages, so every PDF whose end marker is missing is refused; the
  // marker may be followed by up to 1024 bytes, as readers have allowed since Acrobat.
  if (!latin1(bytes.subarray(-1024)).includes("%%EOF")) {
    throw unreadable(name, "the file is truncated");
  }
  await checkPdfStreams(bytes, name);
  const { workers = 0 } = options;
  try {
    const items = workers > 0
      ? await readPdfItemsSplit(bytes, { parts: workers + 1 })
      : (await readPdfItems(bytes)).pages;
    return pageTexts(items).map((text, i) => ({ text, number: i + 1 }));
  } catch (error) {
    if (error instanceof Error && error.name === "PasswordException") {
      throw unreadable(name, "the file is encrypted", error);
    }
    throw unreadable(name, "the file is not a valid PDF", error);
  }
}

function extractPdfPages(bytes: Uint8Array, name: string): Promise<Page[]> {
  return readPdfPages(bytes, name);
}

function latin1(bytes: Uint8Array): string {
  return new TextDecoder("latin1").decode(bytes);
}
