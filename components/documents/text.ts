/**
 * Plain text and Markdown documents.
 * @module
 */
import type { Page } from "../core/page.ts";
import type { DocumentHandler } from "./handler.ts";

/**
 * Reads `.md` and `.txt` files as UTF-8 into one page without a number. A byte order mark is
 * dropped, and bytes that are not UTF-8 become U+FFFD rather than failing the upload.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { textHandler } from "./text.ts";
 * const pages = await textHandler.extractPages(new TextEncoder().encode("# Hi"), "hi.md");
 * assert(pages[0]?.text === "# Hi" && pages[0]?.number === null);
 * ```
 */
export const textHandler: DocumentHandler = {
  suffixes: [".md", ".txt"],
  extractPages: extractTextPages,
};

function extractTextPages(bytes: Uint8Array, _name: string): Promise<Page[]> {
  // Not fatal and not ignoring the BOM: invalid bytes become U+FFFD, the BOM is dropped.
  const text = new TextDecoder("utf-8").decode(bytes);
  return Promise.resolve([{ text, number: null }]);
}
