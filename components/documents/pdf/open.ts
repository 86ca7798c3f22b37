/**
 * A PDF opened for its pages' text items: read directly (`direct.ts`) where the direct reader
 * knows the file, by pdfjs where it does not, page by page. The items are the same either way;
 * the direct reader takes a fraction of pdfjs's time and memory.
 * @module
 */
import { PdfLimitError } from "./limits.ts";
import { DirectPdf } from "./direct.ts";
import { type OpenPdf, openPdfjs } from "./pdfjs.ts";

export type { OpenPdf };

/** Options of {@linkcode openPdf}. */
export interface OpenPdfOptions {
  /**
   * Run once before pdfjs opens the document, if it does: `checkPdfStreams`, which refuses a file
   * whose streams pdfjs would take too long to read (the direct reader keeps within the same
   * bounds by itself, and leaves a stream past them to pdfjs, so to this guard).
   */
  guard?: () => Promise<void>;
}

/**
 * Opens a PDF to read its pages one by one: directly when the direct reader reads its structure,
 * else with pdfjs (whose errors a file that neither reads ends with). A page the direct reader
 * does not read (a font whose text needs its program, say) is read by pdfjs, opened for the first
 * such page and kept until the document is closed. A file or page past a limit of
 * `limits.ts` is refused by the reader that counted it: its {@linkcode PdfLimitError}.
 */
export async function openPdf(bytes: Uint8Array, options: OpenPdfOptions = {}): Promise<OpenPdf> {
  const openWithPdfjs = async () => {
    await options.guard?.();
    return await openPdfjs(bytes);
  };
  let direct: DirectPdf;
  try {
    direct = new DirectPdf(bytes);
  } catch (error) {
    if (error instanceof PdfLimitError) throw error;
    // Whatever else the direct reader cannot read, pdfjs reads or refuses with its own error.
    return await openWithPdfjs();
  }
  let pdfjs: Promise<OpenPdf> | undefined;
  const close = async () => {
    const opened = pdfjs;
    pdfjs = undefined;
    if (opened) await (await opened.catch(() => undefined))?.close();
  };
  return {
    pageCount: direct.pageCount,
    async page(number) {
      try {
        return direct.page(number);
      } catch (error) {
        if (error instanceof PdfLimitError) throw error;
        pdfjs ??= openWithPdfjs();
        return await (await pdfjs).page(number);
      }
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
