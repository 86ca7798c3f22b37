/**
 * The contract of a document handler: the bytes of one format in, pages out.
 * @module
 */
import type { Page } from "../core/page.ts";

/** Turns the bytes of one document format into pages. */
export interface DocumentHandler {
  /** The suffixes it reads, lower case with the dot: `[".pdf"]`. */
  readonly suffixes: readonly string[];
  /**
   * Whether its pages are slides, each of which stands alone: no passage
   * spans two of them (a PDF's page may end inside a paragraph, a slide does not).
   */
  readonly slides?: boolean;
  /**
   * The pages of a document.
   *
   * @param bytes the whole file, never empty
   * @param name the document's name, for error messages
   * @throws {SvcError} 422 made by `unreadable(name, problem)` when the bytes cannot be read
   */
  extractPages(bytes: Uint8Array, name: string): Promise<Page[]>;
  /**
   * The same pages as {@linkcode DocumentHandler.extractPages}, each as soon as it is read, for a
   * format whose documents can be long (PDF); left out where a document is read whole anyway.
   * Ending the iteration early lets go of what the reading holds.
   *
   * @throws {SvcError} as `extractPages` does; the signal's reason once it is aborted
   */
  streamPages?(
    bytes: Uint8Array,
    name: string,
    options?: { signal?: AbortSignal },
  ): AsyncIterable<Page>;
}
