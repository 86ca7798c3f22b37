/**
 * PDF documents, read directly (`direct.ts`) where the file allows and with pdfjs-dist where
 * it does not: the text items are the same either way.
 * @module
 */
import { quote, SvcError, unreadable } from "../../core/errors.ts";
import type { Page } from "../../core/page.ts";
import { PageLayout } from "./layout.ts";
import { pdfWorkers } from "../../core/pdf_workers.ts";
import { openPdfPages, PdfWorkerError } from "./split.ts";
import { checkPdfStreams } from "./streams.ts";
import type { DocumentHandler } from "../handler.ts";

/**
 * Reads `.pdf` files into one numbered page per PDF page, from 1. Each page's text is its
 * paragraphs, a blank line between two, judged from where the text stands: the lines of a paragraph
 * are joined, a word hyphenated across two lines is whole again, a heading is a paragraph of its
 * own, and the running headers, footers and page numbers that repeat across pages are left out.
 * Its pages come out one by one as they are laid out (see `streamPages`), on the calling thread.
 *
 * A file is refused with a 422 when it does not start with `%PDF-` within its first 1024 bytes
 * ("the file is not a PDF"), lacks `%%EOF` in its last 1024 bytes ("the file is truncated"), needs a
 * password ("the file is encrypted"), has a stream that inflates too far (see
 * `checkPdfStreams`, run before pdfjs reads a file or a page of it; the direct reader inflates
 * within the same bounds, and leaves a stream past them to pdfjs), passes a limit of
 * `limits.ts` on its pages, page tree or content streams (counted by whichever reader reads
 * it), or pdfjs cannot read its structure ("the file is not a valid PDF").
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pdfHandler } from "./handler.ts";
 * const pages = await pdfHandler.extractPages(await Deno.readFile("tests/fixtures/report.pdf"), "report.pdf");
 * assert(pages[1]?.number === 2 && pages[1]?.text.includes("cardamom"));
 * ```
 */
export const pdfHandler: DocumentHandler = {
  suffixes: [".pdf"],
  extractPages: (bytes, name) => readPdfPages(bytes, name, { workers: pdfWorkers() }),
  streamPages: (bytes, name, options) =>
    streamPdfPages(bytes, name, { workers: pdfWorkers(), ...options }),
};

/** Options of {@linkcode readPdfPages} and {@linkcode streamPdfPages}. */
export interface ReadPdfOptions {
  /**
   * How many workers read the pages beside the calling thread, taking turns of neighbouring
   * pages with it, each started for this document and ended with it; 0 reads them all on the
   * calling thread, as does a document of one turn of pages or fewer. Each worker loads pdfjs and
   * opens the document again, which costs processor time and memory.
   * @default {0}
   */
  workers?: number;
  /** Stops the reading: it rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Reads a PDF as {@linkcode pdfHandler} does, with the pages read on the calling thread or shared
 * with workers: the texts are the same either way.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readPdfPages } from "./handler.ts";
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
  return await Array.fromAsync(streamPdfPages(bytes, name, options));
}

/**
 * The pages of a PDF as {@linkcode readPdfPages} gives them, each as soon as it is laid out: a
 * long document is never held whole, only the pages that judge the running lines of the next one
 * (`LAYOUT_WINDOW`) and those a worker read ahead. Ending the iteration early ends the workers and
 * lets go of the document; so does an error, which names the document as `readPdfPages` does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { streamPdfPages } from "./handler.ts";
 * const bytes = await Deno.readFile("tests/fixtures/report.pdf");
 * for await (const page of streamPdfPages(bytes, "report.pdf")) {
 *   assert.equal(page.number, 1);
 *   break;
 * }
 * ```
 */
export async function* streamPdfPages(
  bytes: Uint8Array,
  name: string,
  options: ReadPdfOptions = {},
): AsyncGenerator<Page> {
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
  const { workers = 0, signal } = options;
  const failed = (error: unknown) => readError(name, error, signal);
  const guard = () => checkPdfStreams(bytes, name);
  await using pdf = await openPdfPages(bytes, { workers, signal, guard }).catch((error) => {
    throw failed(error);
  });
  const layout = new PageLayout(pdf.pageCount);
  let number = 0;
  const pages = pdf.pages();
  while (true) {
    const next = await pages.next().catch((error) => {
      throw failed(error);
    });
    const texts = next.done ? layout.end() : layout.push(next.value);
    for (const text of texts) {
      signal?.throwIfAborted();
      yield { text, number: ++number };
    }
    if (next.done) return;
  }
}

/** The error a PDF's reading ended with, naming the document. */
function readError(name: string, error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason;
  // The guard's refusal (`checkPdfStreams`), which names the document already.
  if (error instanceof SvcError) return error;
  // A limit's refusal, from this thread or from a worker's, whose errors keep only their names.
  if (error instanceof Error && error.name === "PdfLimitError") {
    return unreadable(name, error.message, error);
  }
  if (error instanceof PdfWorkerError) {
    return new SvcError(`Cannot read ${quote(name)}: ${error.message}`, { cause: error });
  }
  if (error instanceof Error && error.name === "PasswordException") {
    return unreadable(name, "the file is encrypted", error);
  }
  return unreadable(name, "the file is not a valid PDF", error);
}

function latin1(bytes: Uint8Array): string {
  return new TextDecoder("latin1").decode(bytes);
}
