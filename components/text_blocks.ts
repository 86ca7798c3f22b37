/**
 * The structure of a page's text as chunking sees it: paragraphs (a blank
 * line apart, a fenced code block kept whole), which of them are headings or
 * a table of contents, and the sentences of a paragraph too long for one chunk.
 * @module
 */
import { isSpace, type Work } from "./core/text_scan.ts";

/** A paragraph of a page. */
export interface Block {
  /** The paragraph's text, trimmed. */
  text: string;
  /** The heading it is, without Markdown's `#` marks; absent for a paragraph that is no heading. */
  heading?: string;
  /** Whether it is a table of contents: three or more runs of leader dots (`Overview . . . . 2`). */
  contents?: boolean;
}

/**
 * The paragraphs of a page's text, headings marked.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pageBlocks } from "./text_blocks.ts";
 * const blocks = pageBlocks("## Install\n\nRun npm install.\n\n2.5 Optional arguments\n\nThey nest.");
 * assert.deepEqual(blocks.map((block) => block.heading), [
 *   "Install", undefined, "2.5 Optional arguments", undefined,
 * ]);
 * ```
 */
export function pageBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let fenced: string[] | undefined;
  for (const part of text.split(/\n[ \t]*\n/)) {
    // A blank line inside a Markdown code fence does not end the block.
    if (fenced) {
      fenced.push(part);
      if (fenceCount(part) % 2 === 1) {
        blocks.push({ text: fenced.join("\n\n").trim() });
        fenced = undefined;
      }
      continue;
    }
    if (fenceCount(part) % 2 === 1) {
      fenced = [part];
      continue;
    }
    const trimmed = part.trim();
    if (trimmed === "") continue;
    if ((trimmed.match(/(?:\. ){3,}/g)?.length ?? 0) >= 3) {
      blocks.push({ text: trimmed, contents: true });
      continue;
    }
    const heading = headingOf(trimmed);
    blocks.push(heading === undefined ? { text: trimmed } : { text: trimmed, heading });
  }
  if (fenced) blocks.push({ text: fenced.join("\n\n").trim() });
  return blocks;
}

function fenceCount(text: string): number {
  return text.match(/^[ \t]*(?:```|~~~)/gm)?.length ?? 0;
}

// A numbered section heading: "2.5 Optional arguments", "A.1 Colours".
const NUMBERED = /^(?:\d+(?:\.\d+)*|[A-Z](?:\.\d+)+)\.?\s+\S/;

/**
 * The heading a paragraph is, or `undefined`: a Markdown heading (`## Usage`),
 * or one short line that reads as a title rather than a sentence: at most 10
 * words and 80 characters, starting with a capital or a section number,
 * ending without a sentence's punctuation, and holding no code.
 */
export function headingOf(paragraph: string): string | undefined {
  if (paragraph.includes("\n")) return undefined;
  const markdown = markdownHeading(paragraph);
  if (markdown !== undefined) return markdown;
  if (paragraph.length > 80) return undefined;
  if (paragraph.split(/\s+/).length > 10) return undefined;
  // Sentences end so; code, paths and dates (a margin's "New feature 1995/09/27") hold these.
  if (/[.,;:!?]$/.test(paragraph) || /[{}=<>\\|`$/]|\(\)/.test(paragraph)) return undefined;
  if (NUMBERED.test(paragraph)) return paragraph;
  if (!/^\p{Lu}/u.test(paragraph) || /["“”‘’]/.test(paragraph)) return undefined;
  return paragraph;
}

/**
 * The title of a Markdown heading line (`## Usage ##`), without its marks:
 * what `/^#{1,6}[ \t]+(.+?)[ \t#]*$/` captures, trimmed. That expression
 * reads the line's closing run of spaces and `#` again from each character
 * before it; here the marks are taken off the end once.
 */
function markdownHeading(line: string): string | undefined {
  const found = /^#{1,6}[ \t]+(.+)$/.exec(line);
  if (!found) return undefined;
  const title = found[1]!;
  let end = title.length;
  // At least one character stays, as `.+?` takes one.
  while (end > 1 && " \t#".includes(title[end - 1]!)) end--;
  return title.slice(0, end).trim();
}

/**
 * The sentences of a paragraph, each with the space that followed it, so that
 * they join back into the paragraph; a paragraph of lines (code, a table) is
 * cut at its line breaks too. `work` counts the characters looked at, for a
 * test.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sentences } from "./text_blocks.ts";
 * assert.deepEqual(sentences("One. Two? Three"), ["One. ", "Two? ", "Three"]);
 * ```
 */
export function sentences(paragraph: string, work: Work = { steps: 0 }): string[] {
  const parts: string[] = [];
  let start = 0;
  let i = 0;
  while (i < paragraph.length) {
    work.steps++;
    if (!isSpace(paragraph.charCodeAt(i))) {
      i++;
      continue;
    }
    const space = i;
    while (i < paragraph.length && isSpace(paragraph.charCodeAt(i))) {
      work.steps++;
      i++;
    }
    if (
      i < paragraph.length && (paragraph[i - 1] === "\n" || endsSentence(paragraph, space, work))
    ) {
      parts.push(paragraph.slice(start, i));
      start = i;
    }
  }
  parts.push(paragraph.slice(start));
  return parts.filter((part) => part !== "");
}

/**
 * Whether the text before `at` ends a sentence: `.!?:;`, then closing quotes
 * and brackets. What the split of {@linkcode sentences} looked behind for with
 * `(?<=[.!?:;]["”’)\]]*\s+|\n)(?=\S)`, which read each run of white space
 * back to its start from each of its characters; here each run is read once,
 * and the closers before it once.
 */
function endsSentence(text: string, at: number, work: Work): boolean {
  let i = at;
  while (i > 0 && CLOSERS.includes(text[i - 1]!)) {
    work.steps++;
    i--;
  }
  return i > 0 && ".!?:;".includes(text[i - 1]!);
}

const CLOSERS = '"”’)]';
