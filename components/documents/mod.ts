/**
 * The document formats svc reads, one handler per format, found by the
 * format a document names (its suffix, regardless of case), and the reading
 * of a document's pages with them.
 * @module
 */
export type { DocumentHandler } from "./handler.ts";
export {
  contentOf,
  extractPages,
  handlerOf,
  pagesOfBytes,
  readPages,
  readsOwnPages,
  streamPagesOfBytes,
} from "./pages.ts";
export type { ContentOf } from "./pages.ts";
