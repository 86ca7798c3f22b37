/**
 * Parsing a document's bytes into pages on the calling thread: the handler of each format, the
 * checks every document gets first, and the text budget its pages count against. svc calls it in a
 * reader thread (`reader_pool.ts`), never on the thread that serves requests.
 * @module
 */
import { quote, SvcError } from "../core/errors.ts";
import type { Page } from "../core/page.ts";
import { checkContent, type ContentOf } from "./content.ts";
import { docxHandler } from "./docx.ts";
import type { DocumentHandler } from "./handler.ts";
import { TextBudget } from "./limits.ts";
import { pdfHandler } from "./pdf/mod.ts";
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
 * import { handlerOf } from "./parse.ts";
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

/**
 * The pages of a document's content, read on the calling thread by the handler of its format once
 * the content is checked to be there and within the size limit. A format read page by page
 * (`DocumentHandler.streamPages`, PDF) has its text counted as each page comes, so that a document
 * of more text than `MAX_DOCUMENT_CHARACTERS` is refused before the rest is read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parsePages } from "./parse.ts";
 * const bytes = new TextEncoder().encode("# Notes\n");
 * const pages = await parsePages(bytes, { name: "notes.md", format: ".md", maxSize: 1024 });
 * assert.deepEqual(pages, [{ text: "# Notes\n", number: null }]);
 * ```
 *
 * @throws {SvcError} 422 naming the document and the problem when the content is empty, encrypted,
 * truncated, oversized, past a limit of its format or not of the format its suffix says
 */
export async function parsePages(bytes: Uint8Array, content: ContentOf): Promise<Page[]> {
  checkContent(bytes, content);
  const handler = handlerOf(content.format);
  const budget = new TextBudget(content.name);
  if (!handler.streamPages) {
    const pages = await handler.extractPages(bytes, content.name);
    for (const page of pages) budget.take(page.text);
    return pages;
  }
  const pages: Page[] = [];
  for await (const page of handler.streamPages(bytes, content.name)) {
    budget.take(page.text);
    pages.push(page);
  }
  return pages;
}
