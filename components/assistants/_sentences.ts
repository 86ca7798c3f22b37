/**
 * A passage cut into the pieces an extractive answer quotes: sentences of its
 * paragraphs, and whole lines where a line stands alone (a table row, a list
 * item, a heading). One pass over the text, character by character, so that
 * the work grows with the passage's length whatever it holds.
 * @module
 */

/** What a piece of a passage is: quoted as it stands, or (a heading) only read. */
export type PieceKind = "sentence" | "row" | "item" | "heading";

/** A piece of a passage, in the passage's order. */
export interface Piece {
  kind: PieceKind;
  text: string;
  /** The piece's place in its passage, from 0. */
  position: number;
  /** The paragraph it belongs to, from 0: pieces of one paragraph follow one another. */
  paragraph: number;
}

// Words after which a full stop does not end a sentence. Lower case, without the stop.
const ABBREVIATIONS = new Set(
  ("al approx ca cf ch co dept dr e.g eg etc fig figs i.e ie inc jr ltd mr mrs ms no nos p pp " +
    "prof resp sec sect sr st vol vols vs")
    .split(" "),
);

/** The most words of a paragraph without a stop that reads as a title. */
const TITLE_WORDS = 8;

/** A title starts with a letter or a digit, holds no code's signs and ends without a stop. */
const TITLE = /^[\p{L}\p{N}][^\\{}%=<>;]*(?<![.!?:;,])$/u;

const BULLET = /^(?:[-*•‣◦–]|\d{1,3}[.)]|[a-z][.)])\s+/;
const HEADING = /^#{1,6}\s+/;

/** Options of {@linkcode pieces}. */
export interface PiecesOptions {
  /**
   * Whether each line is a paragraph of its own, as svc's readers give a PDF's, a Word document's
   * and a slide's text; else the lines of a paragraph run on, as a Markdown file's wrap.
   * @default {false}
   */
  linesApart?: boolean;
}

/**
 * The pieces of a passage: its paragraphs (blank lines apart) cut into
 * sentences, a table row (`a | b`), a list item or a Markdown heading kept
 * as one piece each.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pieces } from "./_sentences.ts";
 * const found = pieces("# Sales\n\nSales grew 3.5% in May. Dr. Ruiz said so.\n- North | 120");
 * assert.deepEqual(found.map((piece) => [piece.kind, piece.text]), [
 *   ["heading", "Sales"],
 *   ["sentence", "Sales grew 3.5% in May."],
 *   ["sentence", "Dr. Ruiz said so."],
 *   ["item", "North | 120"],
 * ]);
 * ```
 */
export function pieces(passage: string, options: PiecesOptions = {}): Piece[] {
  const found: Piece[] = [];
  let paragraph = 0;
  let lines: string[] = [];
  const add = (kind: PieceKind, text: string) => {
    if (text) found.push({ kind, text, position: found.length, paragraph });
  };
  const endParagraph = () => {
    if (lines.length) {
      const found = sentences(lines.join(" "));
      // A short paragraph without a stop is a title, as PDFs and slides give them.
      const title = found.length === 1 && TITLE.test(found[0]!) &&
        found[0]!.split(" ").length <= TITLE_WORDS;
      for (const sentence of found) add(title ? "heading" : "sentence", sentence);
      paragraph++;
    }
    lines = [];
  };
  let fenced = false;
  for (const raw of passage.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("```")) {
      endParagraph();
      fenced = !fenced;
      continue;
    }
    if (!line) {
      endParagraph();
      continue;
    }
    // A line of code is a piece of its own, never cut at its dots.
    if (fenced) {
      add("sentence", line);
      paragraph++;
      continue;
    }
    const kind = HEADING.test(line)
      ? "heading"
      : BULLET.test(line)
      ? "item"
      : line.includes(" | ")
      ? "row"
      : undefined;
    if (!kind) {
      lines.push(line);
      if (options.linesApart) endParagraph();
      continue;
    }
    endParagraph();
    add(kind, kind === "row" ? line : line.replace(kind === "heading" ? HEADING : BULLET, ""));
    paragraph++;
  }
  endParagraph();
  return found;
}

/**
 * The sentences of a paragraph: a sentence ends at `.`, `!` or `?` (and the
 * quotes or brackets that close it) before a space and a capital, a digit or
 * an opening quote, unless the stop ends an abbreviation, an initial or a
 * number.
 */
export function sentences(paragraph: string): string[] {
  const found: string[] = [];
  let start = 0;
  const text = paragraph.replace(/\s+/g, " ");
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char !== "." && char !== "!" && char !== "?") continue;
    let end = i + 1;
    while (end < text.length && CLOSERS.includes(text[end]!)) end++;
    if (text[end] !== " " || !opensSentence(text[end + 1])) continue;
    if (char === "." && !endsSentence(text, start, i)) continue;
    found.push(text.slice(start, end).trim());
    start = end + 1;
    i = end;
  }
  const rest = text.slice(start).trim();
  if (rest) found.push(rest);
  return found;
}

const CLOSERS = "\"')]”’»";

function opensSentence(char: string | undefined): boolean {
  if (char === undefined) return false;
  return /[\p{Lu}\p{N}"'(\[“‘«]/u.test(char);
}

/** Whether the full stop at `stop` ends a sentence: not after an abbreviation or an initial. */
function endsSentence(text: string, start: number, stop: number): boolean {
  let word = stop;
  while (word > start && text[word - 1] !== " ") word--;
  const before = text.slice(word, stop).replace(/^[("'“‘[]+/, "");
  if (/^\p{Lu}$/u.test(before)) return false;
  return !ABBREVIATIONS.has(before.toLowerCase());
}
