/**
 * The worker of `_pdf_split.ts`: reads the text items of one part of a PDF's pages, answers with
 * them packed, or with the name and message of the error that stopped it.
 * @module
 */
import { packPart, type PdfPartJob, type PdfPartReply } from "./_pdf_split.ts";
import { readPdfItems } from "./_pdfjs.ts";

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<PdfPartJob>) => void) | null;
  postMessage(reply: PdfPartReply, transfer?: Transferable[]): void;
};

scope.onmessage = async ({ data: { bytes, part, parts } }) => {
  try {
    const packed = packPart(await readPdfItems(bytes, { part, parts }));
    scope.postMessage(packed, [packed.numbers.buffer, packed.counts.buffer]);
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    scope.postMessage({ error: { name, message } });
  }
};
