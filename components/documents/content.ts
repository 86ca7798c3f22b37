/**
 * What every document's content is checked against before it is parsed: there, and within the
 * size limit of its class.
 * @module
 */
import type { Document } from "../core/document.ts";
import { unreadable } from "../core/errors.ts";

/** A document's content and what {@linkcode checkContent} checks it against. */
export interface ContentOf {
  /** The document's name, for error messages. */
  name: string;
  /** Its format, as `Document.format` names it: `".pdf"`. */
  format: string;
  /** The largest content its class reads, as `Document.maxSize`. */
  maxSize: number;
}

/** What {@linkcode checkContent} needs to know of a document besides its bytes. */
export function contentOf(document: Document): ContentOf {
  const { maxSize } = document.constructor as typeof Document;
  return { name: document.name, format: document.format, maxSize };
}

/**
 * Refuses content that is empty or over its class's size limit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkContent } from "./content.ts";
 * assert.throws(() => checkContent(new Uint8Array(), { name: "a.md", format: ".md", maxSize: 9 }), {
 *   message: 'Cannot read "a.md": the file is empty',
 * });
 * ```
 *
 * @throws {SvcError} 422 naming the document
 */
export function checkContent(bytes: Uint8Array, content: ContentOf): void {
  if (bytes.length === 0) throw unreadable(content.name, "the file is empty");
  if (bytes.length > content.maxSize) {
    throw unreadable(content.name, `the file is larger than ${formatBytes(content.maxSize)}`);
  }
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
