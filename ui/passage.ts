/**
 * Where a source's passage is in a page's text. The passage is what svc cut
 * out of the document's text; the page's text may be the same text or one
 * that a viewer put together differently (pdf.js's text layer: other line
 * breaks, words cut by hyphens, spaces of its own). So the two are compared
 * word by word, letters and digits only, and the passage may begin or end on
 * another page.
 * @module
 */

/** A part of a text, by the offsets of its first and past its last character. */
export interface TextSpan {
  start: number;
  end: number;
}

/** The fewest words in a row that count as the passage being found. */
const MIN_RUN = 3;

/** How many words either side may differ before a match is given up. */
const SLACK = 3;

interface Word {
  text: string;
  start: number;
  end: number;
}

/** A word, or one cut by a hyphen at the end of a line (`ingre-⏎dient`), which counts as whole. */
const WORD = /[\p{L}\p{N}]+(?:-[^\S\n]*\n\s*[\p{L}\p{N}]+)*/gu;

function words(text: string): Word[] {
  const found: Word[] = [];
  for (const match of text.matchAll(WORD)) {
    found.push({
      text: match[0].replace(/-\s+/g, "").normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase(),
      start: match.index,
      end: match.index + match[0].length,
    });
  }
  return found;
}

/**
 * The part of `page` that holds `passage`, or the part of the passage that
 * is on this page; `undefined` when no run of three of its words is there.
 *
 * @example
 * ```ts
 * import { findPassage } from "./passage.ts";
 * const page = "Page two. The secret ingre-\ndient is cardamom. The end.";
 * const span = findPassage(page, "The secret ingredient is cardamom.")!;
 * console.assert(page.slice(span.start, span.end) === "The secret ingre-\ndient is cardamom");
 * ```
 */
export function findPassage(page: string, passage: string): TextSpan | undefined {
  const inPage = words(page);
  const inPassage = words(passage);
  if (inPage.length === 0 || inPassage.length === 0) return undefined;
  const pageTexts = inPage.map((word) => word.text);
  const passageTexts = inPassage.map((word) => word.text);

  // The longest run of the passage's words in a row on the page.
  const at = new Map<string, number[]>();
  pageTexts.forEach((word, index) => {
    const indexes = at.get(word);
    if (indexes) indexes.push(index);
    else at.set(word, [index]);
  });
  let best = { page: 0, passage: 0, length: 0 };
  for (let j = 0; j < passageTexts.length; j++) {
    for (const i of at.get(passageTexts[j]!) ?? []) {
      let length = 0;
      while (
        i + length < pageTexts.length && j + length < passageTexts.length &&
        pageTexts[i + length] === passageTexts[j + length]
      ) length++;
      if (length > best.length) best = { page: i, passage: j, length };
    }
  }
  if (best.length < Math.min(MIN_RUN, passageTexts.length)) return undefined;

  // Grown either way past small differences (a word cut in two, a page number).
  let first = best.page;
  let last = best.page + best.length - 1;
  let i = last + 1;
  let j = best.passage + best.length;
  while (i < pageTexts.length && j < passageTexts.length) {
    const step = resync(pageTexts, passageTexts, i, j, 1);
    if (!step) break;
    [i, j] = step;
    last = i;
    i++;
    j++;
  }
  i = first - 1;
  j = best.passage - 1;
  while (i >= 0 && j >= 0) {
    const step = resync(pageTexts, passageTexts, i, j, -1);
    if (!step) break;
    [i, j] = step;
    first = i;
    i--;
    j--;
  }
  return { start: inPage[first]!.start, end: inPage[last]!.end };
}

/**
 * The next pair of equal words at or after (`direction` 1) or before (-1)
 * page word `i` and passage word `j`, skipping at most {@linkcode SLACK} on
 * each side; a word cut in two on the page (`ingre` `dient`) matches the
 * whole word of the passage.
 */
function resync(
  page: string[],
  passage: string[],
  i: number,
  j: number,
  direction: 1 | -1,
): [number, number] | undefined {
  for (let skip = 0; skip <= SLACK * 2; skip++) {
    for (let skipPage = 0; skipPage <= skip; skipPage++) {
      const p = i + direction * skipPage;
      const q = j + direction * (skip - skipPage);
      if (p < 0 || q < 0 || p >= page.length || q >= passage.length) continue;
      if (page[p] === passage[q]) return [p, q];
      const next = p + direction;
      if (next >= 0 && next < page.length) {
        const joined = direction === 1 ? page[p]! + page[next]! : page[next]! + page[p]!;
        if (joined === passage[q]) return [next, q];
      }
    }
  }
  return undefined;
}
