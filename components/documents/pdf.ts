/**
 * PDF documents, read with the legacy build of pdfjs-dist.
 * @module
 */
import type { TextItem, TextMarkedContent } from "pdfjs-dist/types/src/display/api.d.ts";
import { unreadable } from "../core/errors.ts";
import type { Page } from "../core/page.ts";
import { pageTexts, type PdfTextItem } from "./_pdf_layout.ts";
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

type Pdfjs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");

let pdfjs: Promise<Pdfjs> | undefined;

/**
 * Loads pdfjs on first use: it takes a few hundred milliseconds, which start-up should not pay. A
 * literal specifier, so that `deno compile` still includes it.
 */
function loadPdfjs(): Promise<Pdfjs> {
  if (!pdfjs) {
    globalThis.addEventListener("unhandledrejection", ignorePdfjsLeak);
    pdfjs = import("pdfjs-dist/legacy/build/pdf.mjs");
  }
  return pdfjs;
}

/** The exceptions of pdfjs's worker code: its `BaseException` subclasses. */
const PDFJS_EXCEPTIONS = new Set([
  "PasswordException",
  "UnknownErrorException",
  "InvalidPDFException",
  "ResponseException",
  "FormatError",
  "AbortException",
  "MissingDataException",
  "ParserEOFException",
  "XRefEntryException",
  "XRefParseException",
  "JpegError",
  "DNLMarkerError",
  "EOIMarkerError",
  "Jbig2Error",
  "JpxError",
]);

/**
 * Keeps a rejection that pdfjs leaves unhandled from ending the process. pdfjs 6.5 fetches the
 * kids of the page tree ahead (`pageDictCache` in `Catalog.getPageDict`) and never awaits those
 * it does not need, so a damaged kid rejects with nobody listening, after the read that caused it
 * ended as it should. Only pdfjs's own exceptions are let go; any other stays fatal.
 */
function ignorePdfjsLeak(event: PromiseRejectionEvent): void {
  const reason = event.reason;
  if (
    reason instanceof Error && PDFJS_EXCEPTIONS.has(reason.name) &&
    /pdf\.js|pdfjs|pdf\.worker/.test(String(reason.stack))
  ) {
    event.preventDefault();
  }
}

async function extractPdfPages(bytes: Uint8Array, name: string): Promise<Page[]> {
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
  const { getDocument } = await loadPdfjs();
  // A copy, because pdfjs may transfer (detach) the buffer it is given; verbosity 0 keeps its
  // warnings about fonts and recovered errors off the console.
  const loadingTask = getDocument({ data: bytes.slice(), verbosity: 0 });
  try {
    const document = await loadingTask.promise;
    const items: PdfTextItem[][] = [];
    for (let number = 1; number <= document.numPages; number++) {
      const content = await (await document.getPage(number)).getTextContent();
      items.push(content.items.filter(isText));
    }
    return pageTexts(items).map((text, i) => ({ text, number: i + 1 }));
  } catch (error) {
    if (error instanceof Error && error.name === "PasswordException") {
      throw unreadable(name, "the file is encrypted", error);
    }
    throw unreadable(name, "the file is not a valid PDF", error);
  } finally {
    await loadingTask.destroy();
  }
}

function isText(item: TextItem | TextMarkedContent): item is TextItem {
  return "str" in item;
}

function latin1(bytes: Uint8Array): string {
  return new TextDecoder("latin1").decode(bytes);
}
