/**
 * pdfjs, loaded on first use, and the text items of a range of a PDF's pages read with it: the
 * part of reading a PDF that runs on the thread that reads, the calling one or a worker of
 * `_pdf_split.ts`.
 * @module
 */
import type { TextItem, TextMarkedContent } from "pdfjs-dist/types/src/display/api.d.ts";
import type { PdfTextItem } from "./_pdf_layout.ts";

type Pdfjs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");

let pdfjs: Promise<Pdfjs> | undefined;

/**
 * Loads pdfjs on first use: it takes a few hundred milliseconds, which start-up should not pay. A
 * literal specifier, so that `deno compile` still includes it.
 */
export function loadPdfjs(): Promise<Pdfjs> {
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

/** Which pages of a document to read: the `part`th of `parts` runs of pages, from 0. */
export interface PdfPart {
  part: number;
  parts: number;
}

/** The text items of a part of a document's pages, and how many pages the whole has. */
export interface PdfPartItems {
  pageCount: number;
  /** The number of the first page read, from 1. */
  first: number;
  pages: PdfTextItem[][];
}

/**
 * Reads the text items of the pages of one part of a PDF, the whole by default. The parts are
 * runs of neighbouring pages, as even as the page count allows, since neighbouring pages mostly
 * share their fonts, which pdfjs parses once per document it opens. Throws pdfjs's errors.
 */
export async function readPdfItems(
  bytes: Uint8Array,
  { part, parts }: PdfPart = { part: 0, parts: 1 },
): Promise<PdfPartItems> {
  const { getDocument } = await loadPdfjs();
  // A copy, because pdfjs may transfer (detach) the buffer it is given; verbosity 0 keeps its
  // warnings about fonts and recovered errors off the console.
  const loadingTask = getDocument({ data: bytes.slice(), verbosity: 0 });
  try {
    const document = await loadingTask.promise;
    const pageCount = document.numPages;
    const first = Math.floor(pageCount * part / parts) + 1;
    const last = Math.floor(pageCount * (part + 1) / parts);
    const pages: PdfTextItem[][] = [];
    for (let number = first; number <= last; number++) {
      const content = await (await document.getPage(number)).getTextContent();
      pages.push(content.items.filter(isText));
    }
    return { pageCount, first, pages };
  } finally {
    await loadingTask.destroy();
  }
}

function isText(item: TextItem | TextMarkedContent): item is TextItem {
  return "str" in item;
}
