/**
 * Plain text and Markdown documents.
 * @module
 */
import type { Page } from "../core/page.ts";
import type { DocumentHandler } from "./handler.ts";
import { TextBudget } from "./limits.ts";

/**
 * Reads `.md` and `.txt` files as UTF-8 into one page without a number. A byte order mark is
 * dropped, and bytes that are not UTF-8 become U+FFFD rather than failing the upload. A file of
 * more characters than `MAX_DOCUMENT_CHARACTERS` is refused.
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

/** How many bytes are decoded at a time. */
const SLICE_BYTES = 2 ** 20;

function extractTextPages(bytes: Uint8Array, name: string): Promise<Page[]> {
  try {
    return Promise.resolve([{ text: decodeText(bytes, name), number: null }]);
  } catch (error) {
    return Promise.reject(error);
  }
}

function decodeText(bytes: Uint8Array, name: string): string {
  const budget = new TextBudget(name);
  // Not fatal and not ignoring the BOM: invalid bytes become U+FFFD, the BOM is dropped. Decoded a
  // slice at a time and counted as it goes, so that too much text is refused before it is whole.
  const decoder = new TextDecoder("utf-8");
  const parts: string[] = [];
  for (let at = 0; at < bytes.length; at += SLICE_BYTES) {
    const part = decoder.decode(bytes.subarray(at, at + SLICE_BYTES), { stream: true });
    budget.take(part);
    parts.push(part);
  }
  const rest = decoder.decode();
  budget.take(rest);
  parts.push(rest);
  return parts.join("");
}
