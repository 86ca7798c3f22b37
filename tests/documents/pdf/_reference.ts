/**
 * The text of PDFs as poppler's `pdftotext` gives it, the reference that the PDF handler's text is
 * measured against, and the measure: how many words the two texts share.
 * @module
 */
import { run } from "../../_process.ts";

/** The path of a file in tests/fixtures/. */
export function fixturePath(name: string): string {
  return new URL(`../../fixtures/${name}`, import.meta.url).pathname;
}

/** The path of a PDF of the labelled set (tests/fixtures/labelled/). */
export function labelledPdf(name: string): string {
  return fixturePath(`labelled/${name}`);
}

/**
 * The text `pdftotext` (poppler-utils) gives for a PDF, or for one of its pages.
 * @throws {Error} when pdftotext is missing or fails
 */
export async function pdftotext(path: string, page?: number): Promise<string> {
  const pages = page === undefined ? [] : ["-f", String(page), "-l", String(page)];
  const ended = await run("pdftotext", [...pages, "-enc", "UTF-8", path, "-"]);
  if (!ended.success) throw new Error(`pdftotext failed on ${path}: ${ended.stderr}`);
  return ended.stdout;
}

/** The words of a text in lower case, a word hyphenated across two lines joined. */
function wordsOf(text: string): string[] {
  const joined = text.replace(/(\p{L})[-\u00AD\u2010]\n(\p{Ll})/gu, "$1$2");
  return joined.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * How far two texts have the same words, each as often, in any order: twice the size of the
 * multisets' intersection over the sum of their sizes (1 for the same words, 0 for none shared).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wordAgreement } from "./_reference.ts";
 * assert.equal(wordAgreement("a func-\ntion here", "a function"), 0.8);
 * ```
 */
export function wordAgreement(text: string, reference: string): number {
  const left = new Map<string, number>();
  const words = wordsOf(text);
  for (const word of words) left.set(word, (left.get(word) ?? 0) + 1);
  let shared = 0;
  const others = wordsOf(reference);
  for (const word of others) {
    const count = left.get(word) ?? 0;
    if (count > 0) {
      shared++;
      left.set(word, count - 1);
    }
  }
  return (2 * shared) / (words.length + others.length || 1);
}
