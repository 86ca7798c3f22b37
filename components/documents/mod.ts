/**
 * The reading of a document's pages, in reader threads, each format by its
 * handler (`parse.ts`, which the threads load; the thread that serves
 * requests never does). PDF's reader has a folder of its own, `pdf/`, whose
 * `mod.ts` says why svc reads PDFs itself and where it leaves them to pdfjs.
 * @module
 */
export type { DocumentHandler } from "./handler.ts";
export {
  contentOf,
  extractPages,
  pagesOfBytes,
  readPages,
  readsOwnPages,
  viewOf,
} from "./pages.ts";
export type { ContentOf } from "./pages.ts";
export { ReaderPool, readerPool } from "./reader_pool.ts";
export type { DocumentView, SlideBlock, SlideView } from "./views.ts";
