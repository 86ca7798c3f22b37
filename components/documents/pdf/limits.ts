/**
 * What reading a PDF may build, whichever reader reads it: the direct one counts as it walks the
 * file, and `checkPdfStreams` counts the same before pdfjs reads it. A file past a limit is refused
 * with a {@linkcode PdfLimitError}, never handed on to the other reader, which would take longer.
 * @module
 */

/** The most pages of a document, a page listed twice counting twice: ten times a long manual's. */
export const MAX_PDF_PAGES = 20_000;

/**
 * The most entries of a page tree's `Kids` arrays, pages and the nodes that group them: a tree of
 * {@linkcode MAX_PDF_PAGES} pages has fewer nodes than pages.
 */
export const MAX_PAGE_TREE_ENTRIES = 2 * MAX_PDF_PAGES;

/**
 * How many times one page may be listed in the page tree. A well-made file lists each page once;
 * some list a blank page again where it recurs. pdfjs walks the tree from its root for every page
 * it reads, so one page listed a hundred thousand times costs it minutes.
 */
export const MAX_PAGE_REPEATS = 100;

/** The most content streams of one page: real pages have a handful, a few hundred at most. */
export const MAX_PAGE_CONTENT_STREAMS = 1_000;

/** The most content streams of a document: fifty for each page of a long manual. */
export const MAX_CONTENT_STREAMS = 100_000;

/**
 * The most bytes a page's content streams may inflate to together: a page of dense text holds
 * tens of kilobytes, a detailed drawing a few megabytes, and every operator of it is read.
 */
export const MAX_PAGE_CONTENT_BYTES = 32 * 2 ** 20;

/**
 * The most bytes a document's streams may inflate to together, images aside (reading text never
 * decodes them): a long manual's content and fonts take a few tens of megabytes.
 */
export const MAX_PDF_DECODED_BYTES = 128 * 2 ** 20;

/** A PDF past one of the limits above; its message is the problem, as `unreadable` words it. */
export class PdfLimitError extends Error {
  override name = "PdfLimitError";
}

/** A count as the messages write it: `20,000`. */
export function formatCount(count: number): string {
  return count.toLocaleString("en-US");
}
