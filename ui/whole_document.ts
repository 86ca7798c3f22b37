/**
 * A document opened as itself, from its pill, Chat info or the document
 * list, rather than from a source: the document view shows it from its
 * first page, with nothing marked.
 * @module
 */
import type { Document, Source } from "./api_types.ts";

/** A document as a source without a passage. */
export function wholeDocument(document: Document): Source {
  return { id: "", document, location: "", content: "", num_tokens: 0 };
}
