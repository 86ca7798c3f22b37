/**
 * Documents as the web UI shows them, each format as itself: a Word document
 * as sanitised HTML, a presentation as its slides, Markdown and text as their
 * text, each with the text svc indexes so that a source's passage is found in
 * it. Rendered on the calling thread: svc renders in a reader thread
 * (`reader_pool.ts`), as it parses.
 * @module
 */
import { checkContent, type ContentOf } from "./content.ts";
import { viewDocx } from "./docx.ts";
import { parsePages } from "./parse.ts";
import { type SlideView, viewPptx } from "./pptx.ts";

export type { SlideBlock, SlideView } from "./pptx.ts";

/** A document as the web UI shows it. */
export type DocumentView =
  /** Shown from its file (`GET /documents/{id}/content`), as it is. */
  | { format: "pdf" }
  /** Its HTML; each block element's `data-start` and `data-end` are its place in `text`. */
  | { format: "docx"; html: string; text: string }
  | { format: "pptx"; slides: SlideView[] }
  | { format: "markdown" | "text"; text: string };

/**
 * The view of a document's content.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderView } from "./views.ts";
 * const bytes = new TextEncoder().encode("# Notes\n");
 * const view = await renderView(bytes, { name: "notes.md", format: ".md", maxSize: 1024 });
 * assert.deepEqual(view, { format: "markdown", text: "# Notes\n" });
 * ```
 *
 * @throws {SvcError} 422 naming the document and the problem, as parsing it does
 */
export async function renderView(bytes: Uint8Array, content: ContentOf): Promise<DocumentView> {
  checkContent(bytes, content);
  switch (content.format) {
    case ".pdf":
      return { format: "pdf" };
    case ".docx":
      return { format: "docx", ...await viewDocx(bytes, content.name) };
    case ".pptx":
      return { format: "pptx", slides: viewPptx(bytes, content.name) };
    default: {
      // The text as indexed: decoded as the text handler decodes it.
      const [page] = await parsePages(bytes, content);
      return { format: content.format === ".md" ? "markdown" : "text", text: page?.text ?? "" };
    }
  }
}
