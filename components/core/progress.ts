/**
 * Progress while a chat's documents are prepared: what a source storage
 * reports, document by document, as it reads, parses and indexes them, so
 * that a client can show how far each one is.
 * @module
 */
import type { Document } from "./document.ts";

/**
 * Where one document stands:
 * - `reading`: its bytes are being read;
 * - `parsed`: its text is out, `pages` pages of it;
 * - `indexed`: stored for search, `chunks` passages of it (the end of a document);
 * - `failed`: it could not be prepared, `error` says why.
 */
export type PrepareStage = "reading" | "parsed" | "indexed" | "failed";

/** One step of one document. */
export interface PrepareProgress {
  document: Document;
  stage: PrepareStage;
  /** The pages parsed so far, from `parsed` on. */
  pages?: number;
  /** The passages indexed, at `indexed`. */
  chunks?: number;
  /** Why the document failed, at `failed`. */
  error?: string;
}

/** Called with each step; it must not throw, and a slow one slows preparing. */
export type PrepareProgressCallback = (progress: PrepareProgress) => void;
