/**
 * Sources: the passages of documents that an answer is based on.
 * @module
 */
import type { Document } from "./document.ts";

/** A passage of a document that an answer is based on. */
export interface Source {
  /** Given by the source storage; unique within it. */
  id: string;
  /** The document the passage comes from. */
  document: Document;
  /** Where in the document: pages as `1-3, 5`, or `""` where the format has no pages. */
  location: string;
  /** The passage itself. */
  content: string;
  /** The number of tokens of `content`. */
  numTokens: number;
}
