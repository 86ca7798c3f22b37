/**
 * The document formats svc reads, one handler per format, found by the
 * format a document names (its suffix, regardless of case), and the reading
 * of a document's pages with them.
 * @module
 */
export type { DocumentHandler } from "./handler.ts";
export { extractPages, handlerOf, readPages } from "./pages.ts";
