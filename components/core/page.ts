/**
 * Pages: what a document handler makes of a document's bytes.
 * @module
 */
/**
 * A page of a document: a PDF page, a slide, or the whole text of a format
 * without pages, whose `number` is then `null`.
 */
export interface Page {
  /** The text of the page. */
  text: string;
  /** The page or slide number, from 1; `null` where the format has no pages. */
  number: number | null;
}
