/**
 * Reading a PDF's pages on several threads at once: the calling thread and each worker open the
 * document and read one run of its pages, the workers sending back their text items, packed, for
 * the calling thread to lay out, since the running headers and footers are found across all pages.
 * @module
 */
import type { PdfTextItem } from "./_pdf_layout.ts";
import { type PdfPart, type PdfPartItems, readPdfItems } from "./_pdfjs.ts";

/** What a worker is asked: the document, and which part of its pages to read. */
export interface PdfPartJob extends PdfPart {
  bytes: Uint8Array;
}

/**
 * The text items of a part, packed for `postMessage`: the strings in page order, five numbers per
 * item (x, y, width, height, and 1 where a line ends) and the item count of each page.
 */
export interface PackedPart {
  pageCount: number;
  first: number;
  strings: string[];
  numbers: Float64Array<ArrayBuffer>;
  counts: Uint32Array<ArrayBuffer>;
}

/** A worker's answer: its part, or the name and message of the error that stopped it. */
export type PdfPartReply = PackedPart | { error: { name: string; message: string } };

/** Packs the items of a part, in a worker. */
export function packPart({ pageCount, first, pages }: PdfPartItems): PackedPart {
  const strings: string[] = [];
  const numbers = new Float64Array(pages.reduce((sum, items) => sum + items.length, 0) * 5);
  let at = 0;
  for (const items of pages) {
    for (const item of items) {
      strings.push(item.str);
      numbers.set(
        [item.transform[4] ?? 0, item.transform[5] ?? 0, item.width, item.height, +item.hasEOL],
        at,
      );
      at += 5;
    }
  }
  return { pageCount, first, strings, numbers, counts: Uint32Array.from(pages, (p) => p.length) };
}

/** The items of each page of a part, unpacked; the items keep what the layout reads of them. */
export function unpackPart({ strings, numbers, counts }: PackedPart): PdfTextItem[][] {
  const pages: PdfTextItem[][] = [];
  let item = 0;
  for (const count of counts) {
    const items: PdfTextItem[] = [];
    for (const end = item + count; item < end; item++) {
      const at = item * 5;
      items.push({
        str: strings[item]!,
        transform: [1, 0, 0, 1, numbers[at]!, numbers[at + 1]!],
        width: numbers[at + 2]!,
        height: numbers[at + 3]!,
        hasEOL: numbers[at + 4] === 1,
      });
    }
    pages.push(items);
  }
  return pages;
}

/** Options of {@linkcode readPdfItemsSplit}. */
export interface SplitOptions {
  /** How many runs the pages are read in: the first on the calling thread, each other on a worker. */
  parts: number;
  /**
   * The main module of the workers.
   * @default {`_pdf_worker.ts`}
   */
  worker?: URL;
}

/**
 * Reads the text items of every page of a PDF in `parts` runs: the first on the calling thread,
 * which would otherwise wait, and each other on a worker started for this document and ended when
 * it is read or fails. Rejects with the first error, pdfjs's own on the calling thread, an `Error`
 * of the same name and message as pdfjs's from a worker, or the error that ended a worker.
 */
export async function readPdfItemsSplit(
  bytes: Uint8Array,
  { parts, worker: main }: SplitOptions,
): Promise<PdfTextItem[][]> {
  const workers: Worker[] = [];
  try {
    const replies = await Promise.all(Array.from({ length: parts }, (_, part) => {
      if (part === 0) return readPdfItems(bytes, { part, parts }).then(packPart);
      const worker = main
        ? new Worker(main, { type: "module" })
        : new Worker(new URL("./_pdf_worker.ts", import.meta.url), { type: "module" });
      workers.push(worker);
      return new Promise<PackedPart>((resolve, reject) => {
        worker.onmessage = ({ data }: MessageEvent<PdfPartReply>) => {
          if ("error" in data) {
            reject(Object.assign(new Error(data.error.message), { name: data.error.name }));
          } else resolve(data);
        };
        worker.onerror = (event) => {
          event.preventDefault();
          reject(new Error(`A worker reading the PDF stopped: ${event.message}`));
        };
        worker.onmessageerror = () => reject(new Error("A worker's answer could not be read"));
        // A copy for each, moved rather than copied again.
        const copy = new Uint8Array(bytes);
        const job: PdfPartJob = { bytes: copy, part, parts };
        worker.postMessage(job, [copy.buffer]);
      });
    }));
    for (const worker of workers) worker.terminate();
    const pages = replies.flatMap(unpackPart);
    if (pages.length !== replies[0]?.pageCount) {
      throw new Error("The workers read a different number of pages than the document has");
    }
    return pages;
  } finally {
    for (const worker of workers) worker.terminate();
  }
}
