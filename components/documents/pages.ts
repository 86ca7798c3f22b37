/**
 * Reading a document's pages: its bytes, checked to be there and within the
 * size limit, turned into pages by the handler its format names. The
 * registry makes {@linkcode readPages} what `Document.extractPages()` reads
 * with.
 * @module
 */
import type { Document } from "../core/document.ts";
import { quote, SvcError, unreadable } from "../core/errors.ts";
import type { Page } from "../core/page.ts";
import { docxHandler } from "./docx.ts";
import type { DocumentHandler } from "./handler.ts";
import { pdfHandler } from "./pdf.ts";
import { pptxHandler } from "./pptx.ts";
import { textHandler } from "./text.ts";

const HANDLERS: ReadonlyMap<string, DocumentHandler> = new Map(
  [textHandler, pdfHandler, docxHandler, pptxHandler].flatMap((handler) =>
    handler.suffixes.map((suffix) => [suffix, handler] as const)
  ),
);

/**
 * The handler of a format, as `Document.format` names it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { handlerOf } from "./pages.ts";
 * assert.deepEqual(handlerOf(".md").suffixes, [".md", ".txt"]);
 * ```
 *
 * @throws {SvcError} 500 for a format that has no handler: a document's
 * constructor lets through only the formats that have one
 */
export function handlerOf(format: string): DocumentHandler {
  const handler = HANDLERS.get(format);
  if (handler) return handler;
  throw new SvcError(`svc has no handler for the format ${quote(format)}`);
}

/** Whether a format's pages are slides, each standing alone (`DocumentHandler.slides`). */
export function isSlides(format: string): boolean {
  return HANDLERS.get(format)?.slides === true;
}

/** A document's content and what {@linkcode pagesOfBytes} checks it against. */
export interface ContentOf {
  /** The document's name, for error messages. */
  name: string;
  /** Its format, as `Document.format` names it: `".pdf"`. */
  format: string;
  /** The largest content its class reads, as `Document.maxSize`. */
  maxSize: number;
}

/**
 * The pages of a document's content, read by the handler of its format once
 * the content is checked to be there and within the size limit: what
 * {@linkcode readPages} does once it has the bytes, and what the indexing
 * worker does with the bytes it is sent.
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
 * @throws {SvcError} 422 naming the document and the problem when the content is
 * empty, encrypted, truncated, oversized or not of the format its suffix says.
 */
export async function pagesOfBytes(bytes: Uint8Array, content: ContentOf): Promise<Page[]> {
  checkContent(bytes, content);
  return await handlerOf(content.format).extractPages(bytes, content.name);
}

function checkContent(bytes: Uint8Array, content: ContentOf): void {
  if (bytes.length === 0) throw unreadable(content.name, "the file is empty");
  if (bytes.length > content.maxSize) {
    throw unreadable(content.name, `the file is larger than ${formatBytes(content.maxSize)}`);
  }
}

/**
 * The pages of a document's content as {@linkcode pagesOfBytes} gives them, each as soon as it is
 * read where its format's handler reads page by page (`DocumentHandler.streamPages`, PDF), else
 * all at once. Ending the iteration early lets go of what the reading holds.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { streamPagesOfBytes } from "./pages.ts";
 * const bytes = await Deno.readFile("tests/fixtures/report.pdf");
 * const content = { name: "report.pdf", format: ".pdf", maxSize: 2 ** 20 };
 * const numbers = [];
 * for await (const page of streamPagesOfBytes(bytes, content)) numbers.push(page.number);
 * assert.deepEqual(numbers, [1, 2, 3]);
 * ```
 *
 * @throws {SvcError} as {@linkcode pagesOfBytes} does; the signal's reason once it is aborted
 */
export async function* streamPagesOfBytes(
  bytes: Uint8Array,
  content: ContentOf,
  options: { signal?: AbortSignal } = {},
): AsyncGenerator<Page> {
  checkContent(bytes, content);
  const handler = handlerOf(content.format);
  if (handler.streamPages) yield* handler.streamPages(bytes, content.name, options);
  else yield* await handler.extractPages(bytes, content.name);
}

/**
 * The pages of a document, read by the handler of its format: what
 * `Document.extractPages()` gives unless the document's class reads its pages
 * itself.
 *
 * @throws {SvcError} 422 naming the document and the problem when the content is
 * empty, encrypted, truncated, oversized or not of the format its suffix says.
 */
export async function readPages(document: Document): Promise<Page[]> {
  return await pagesOfBytes(await document.read(), contentOf(document));
}

/** What {@linkcode pagesOfBytes} needs to know of a document besides its bytes. */
export function contentOf(document: Document): ContentOf {
  const { maxSize } = document.constructor as typeof Document;
  return { name: document.name, format: document.format, maxSize };
}

/**
 * The pages of a document, as `document.extractPages()` gives them: by its
 * class when the class declares that it reads its pages itself
 * (`Document.readsOwnPages`), else by {@linkcode readPages}. svc's own
 * components read pages through here, so that they do not depend on the
 * registry having set `Document.pageReader`.
 */
export function extractPages(document: Document): Promise<Page[]> {
  return readsOwnPages(document) ? document.extractPages() : readPages(document);
}

/** Whether the document's class declares that it reads its pages itself. */
export function readsOwnPages(document: Document): boolean {
  return (document.constructor as typeof Document).readsOwnPages;
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
