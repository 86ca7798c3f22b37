/**
 * Reading a document's pages: its bytes, checked to be there and within the size limit, parsed in
 * a reader thread (`reader_pool.ts`) by the handler its format names. The registry makes
 * {@linkcode readPages} what `Document.extractPages()` reads with.
 * @module
 */
import type { Document } from "../core/document.ts";
import type { Page } from "../core/page.ts";
import { checkContent, type ContentOf, contentOf } from "./content.ts";
import { readerPool } from "./reader_pool.ts";
import type { DocumentView } from "./views.ts";

export { contentOf };
export type { ContentOf };

/**
 * The pages of a document's content, parsed in a reader thread by the handler of its format once
 * the content is checked to be there and within the size limit: what {@linkcode readPages} does
 * once it has the bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pagesOfBytes } from "./pages.ts";
 * const bytes = new TextEncoder().encode("# Notes\n");
 * const pages = await pagesOfBytes(bytes, { name: "notes.md", format: ".md", maxSize: 1024 });
 * assert.deepEqual(pages, [{ text: "# Notes\n", number: null }]);
 * ```
 *
 * @throws {SvcError} 422 naming the document and the problem when the content is empty, encrypted,
 * truncated, oversized, past a limit of its format, not of the format its suffix says, or when
 * reading it passed the reader's memory or time; the signal's reason once it is aborted
 */
export async function pagesOfBytes(
  bytes: Uint8Array,
  content: ContentOf,
  options: { signal?: AbortSignal } = {},
): Promise<Page[]> {
  checkContent(bytes, content);
  return await readerPool().read(bytes, content, options);
}

/**
 * The view of a document, rendered in a reader thread once its content is
 * checked to be there and within the size limit (see `renderView`).
 *
 * @throws {SvcError} as {@linkcode pagesOfBytes} does
 */
export async function viewOf(
  document: Document,
  options: { signal?: AbortSignal } = {},
): Promise<DocumentView> {
  const bytes = await document.read();
  const content = contentOf(document);
  checkContent(bytes, content);
  return await readerPool().view(bytes, content, options);
}

/**
 * The pages of a document, read by the handler of its format: what
 * `Document.extractPages()` gives unless the document's class reads its pages
 * itself.
 *
 * @throws {SvcError} as {@linkcode pagesOfBytes} does
 */
export async function readPages(document: Document): Promise<Page[]> {
  return await pagesOfBytes(await document.read(), contentOf(document));
}

/**
 * The pages of a document, as `document.extractPages()` gives them: by its
 * class when the class declares that it reads its pages itself
 * (`Document.readsOwnPages`), else by {@linkcode readPages}, without the
 * by-name import of the handlers that `Document.extractPages()` makes.
 */
export function extractPages(document: Document): Promise<Page[]> {
  return readsOwnPages(document) ? document.extractPages() : readPages(document);
}

/** Whether the document's class declares that it reads its pages itself. */
export function readsOwnPages(document: Document): boolean {
  return (document.constructor as typeof Document).readsOwnPages;
}
