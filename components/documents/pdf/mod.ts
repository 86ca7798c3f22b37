/**
 * PDF reading: a PDF's bytes in, one page of laid-out text per PDF page out
 * ({@linkcode pdfHandler}, {@linkcode readPdfPages}, {@linkcode streamPdfPages}).
 *
 * Make or buy: svc reads a PDF's text itself where the file allows, and buys
 * everything else from pdfjs-dist, a kept package.
 *
 * - Why not pdfjs alone: pdfjs is made to draw pages, so to get their text it
 *   parses every font program and compiles every operator of a page into a
 *   list, where reading text needs neither; the direct reader reads the
 *   cross-reference, the content streams and only what each font says of its
 *   text, and so takes a fraction of pdfjs's processor time and less of its
 *   memory, and less processor time than poppler's `pdftotext`
 *   (`bench/pdf_bench.ts` measures the three on the same file; its figures
 *   are in `bench/results/`).
 * - Why not pdftotext: it is a native program, which the one `svc` binary
 *   cannot carry, and a process per document where svc reads in its own
 *   bounded threads.
 * - Why pdfjs still: PDF is a large format and its files are often damaged;
 *   pdfjs recovers broken cross-references, decrypts, decodes every filter
 *   and every kind of font, and is kept by others. What the direct reader
 *   does not know (encryption, a structure only recovery reads, filters other
 *   than Flate, inline images, right-to-left text, Type 3 fonts, fonts not
 *   embedded, fonts whose text needs their program's tables) it leaves to
 *   pdfjs, the whole file or one page, so that what it does not know costs
 *   time, never text.
 *
 * The text items are the same either way: the direct reader keeps pdfjs's
 * `getTextContent()` step for step, and `tests/documents/pdf/direct_test.ts`
 * compares them, item by item, with pdfjs's on every PDF of the fixtures.
 *
 * Its files: `handler.ts` (the checks, the errors, the layout of the pages),
 * `split.ts` and `_worker.ts` (pages shared with worker threads), `open.ts`
 * (direct, else pdfjs, page by page), the direct reader (`direct.ts` over
 * `file.ts`, `syntax.ts`, `fonts.ts`, `glyphs.ts`, `text_items.ts`), the
 * fallback (`pdfjs.ts`), the guard run before pdfjs (`streams.ts`,
 * `structure_scan.ts`), the limits both readers count (`limits.ts`), and the
 * layout of items into paragraphs (`layout.ts`).
 * @module
 */
export { pdfHandler, readPdfPages, streamPdfPages } from "./handler.ts";
export type { ReadPdfOptions } from "./handler.ts";
