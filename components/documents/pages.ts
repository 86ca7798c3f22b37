/**
 * Reading a document's pages: its bytes, checked to be there and within the
 * size limit, turned into pages by the handler its format names. The
 * registry makes {@linkcode readPages} what `Document.extractPages()` reads
 * with.
 * @module
 */
import { Document } from "../core/document.ts";
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

/**
 * The pages of a document, read by the handler of its format: what
 * `Document.extractPages()` gives unless the document's class reads its pages
 * itself.
 *
 * @throws {SvcError} 422 naming the document and the problem when the content is
 * empty, encrypted, truncated, oversized or not of the format its suffix says.
 */
export async function readPages(document: Document): Promise<Page[]> {
  const bytes = await document.read();
  if (bytes.length === 0) throw unreadable(document.name, "the file is empty");
  const limit = (document.constructor as typeof Document).maxSize;
  if (bytes.length > limit) {
    throw unreadable(document.name, `the file is larger than ${formatBytes(limit)}`);
  }
  return await handlerOf(document.format).extractPages(bytes, document.name);
}

/**
 * The pages of a document, as `document.extractPages()` gives them: by its
 * class when the class reads its pages itself, else by {@linkcode readPages}.
 * svc's own components read pages through here, so that they do not depend
 * on the registry having set `Document.pageReader`.
 */
export function extractPages(document: Document): Promise<Page[]> {
  return document.extractPages === Document.prototype.extractPages
    ? readPages(document)
    : document.extractPages();
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
