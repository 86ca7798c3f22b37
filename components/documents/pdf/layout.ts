/**
 * The text of PDF pages from where their text items stand: lines joined into paragraphs, words
 * hyphenated across lines joined, running headers, footers and page numbers dropped, headings kept
 * as paragraphs of their own.
 * @module
 */

/** A text item as pdfjs gives it: its text, its place (`transform[4]`, `transform[5]`) and size. */
export interface PdfTextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
}

/** A line of a page as it is laid out. */
export interface PdfLine {
  text: string;
  /** The baseline, in points from the bottom of the page. */
  y: number;
  /** Where its text starts and ends, in points from the left of the page. */
  left: number;
  right: number;
  /** The font size of most of its characters. */
  size: number;
}

/**
 * How many pages the layout judges a document from: its text block and body text from the first
 * ones, and whether a line at the top or bottom of a page is a running header or footer from the
 * pages around it. A document of this many pages or fewer is judged from all of its pages at once;
 * a longer one flows through the layout with no more than this many pages held.
 */
export const LAYOUT_WINDOW = 64;

/**
 * The text of each page of a document, from its text items: see {@linkcode PageLayout}, which
 * this runs over the whole document.
 */
export function pageTexts(pages: readonly (readonly PdfTextItem[])[]): string[] {
  const layout = new PageLayout(pages.length);
  return [...pages.flatMap((items) => layout.push(items)), ...layout.end()];
}

/** A page as the layout holds it until its running lines are judged. */
interface LaidPage {
  lines: PdfLine[];
  notes: PdfLine[];
  /** The lines among its two top and two bottom ones, and their keys. */
  edges: Set<PdfLine>;
  keys: Set<string>;
}

/**
 * Lays out a document's pages as they come, in order, into the text of each: see
 * {@linkcode paragraphsOf}. Notes in the margins, left or right of the text block (change notes,
 * for instance), are taken out of the lines they stand beside and follow the page's paragraphs,
 * each a paragraph of its own. The text block and the body text's size and spacing are judged from
 * the first {@linkcode LAYOUT_WINDOW} pages; a line among the two top or bottom ones of a page is
 * a running header, footer or page number when it repeats, numbers aside, at the top or bottom of
 * at least three of the `window` pages around it (of both pages of a two-page document). A page's
 * text is given once the pages after it that judge it have come, so that at most `window` pages
 * are held; a document of `window` pages or fewer is judged from all of them, as a whole.
 */
export class PageLayout {
  readonly #pageCount: number;
  readonly #window: number;
  /** The items of the first pages, until the text block is judged from them. */
  #head: PdfTextItem[][] | undefined = [];
  #block: { left: number; right: number } | undefined;
  #body: BodyMetrics | undefined;
  /** The pages laid out and not yet given, from the page numbered `#first` (from 0). */
  #laid: LaidPage[] = [];
  #first = 0;
  /** How many pages came, and how many were given. */
  #received = 0;
  #given = 0;
  /** How many pages of the current window hold each key at their edges, and what it spans. */
  #counts = new Map<string, number>();
  #from = 0;
  #to = 0;

  /**
   * @param pageCount how many pages the document has
   * @param window how many pages judge a page's running lines, and the text block
   */
  constructor(pageCount: number, window: number = LAYOUT_WINDOW) {
    this.#pageCount = pageCount;
    this.#window = Math.max(1, window);
  }

  /** Takes the next page's text items; gives the texts of the pages now judged, in order. */
  push(items: readonly PdfTextItem[]): string[] {
    if (this.#received >= this.#pageCount) {
      throw new Error(`The layout was given more than the document's ${this.#pageCount} pages`);
    }
    this.#received++;
    if (this.#head) {
      this.#head.push([...items]);
      if (this.#head.length < Math.min(this.#window, this.#pageCount)) return [];
      this.#settle();
    } else {
      this.#laid.push(this.#lay(items));
    }
    return this.#ready();
  }

  /** Gives the texts of the pages still held, once every page came. */
  end(): string[] {
    if (this.#received !== this.#pageCount) {
      throw new Error(
        `The layout was given ${this.#received} of the document's ${this.#pageCount} pages`,
      );
    }
    if (this.#head) this.#settle();
    return this.#ready();
  }

  /** Judges the text block and the body text from the first pages, and lays them out. */
  #settle(): void {
    const head = this.#head!;
    this.#head = undefined;
    this.#block = textBlock(head.map((items) => linesOf(items)));
    const laid = head.map((items) => this.#lay(items));
    this.#body = bodyMetrics(laid.map(({ lines }) => lines));
    this.#laid.push(...laid);
  }

  #lay(items: readonly PdfTextItem[]): LaidPage {
    const block = this.#block!;
    const inMargin = (item: PdfTextItem) =>
      item.str.trim() !== "" &&
      (x(item) > block.right + item.height * 0.5 ||
        x(item) + item.width < block.left - item.height * 0.5);
    const lines = linesOf(items.filter((item) => !inMargin(item)));
    const notes = linesOf(items.filter(inMargin));
    const edges = edgeLines([...lines, ...notes]);
    return { lines, notes, edges, keys: new Set([...edges].map((line) => runningKey(line.text))) };
  }

  /** The texts of the pages whose window came whole, each let go once no window needs it. */
  #ready(): string[] {
    const texts: string[] = [];
    const count = this.#pageCount;
    const least = Math.min(3, Math.max(2, count));
    while (this.#given < this.#first + this.#laid.length) {
      const page = this.#given;
      const from = Math.min(Math.max(page - Math.floor(this.#window / 2), 0), count - this.#window);
      const start = Math.max(from, 0);
      const end = Math.min(count, start + this.#window);
      if (this.#first + this.#laid.length < end) break;
      while (this.#to < end) this.#count(this.#to++, 1);
      while (this.#from < start) this.#count(this.#from++, -1);
      const { lines, notes, edges } = this.#laid[page - this.#first]!;
      const stays = (line: PdfLine) =>
        !edges.has(line) || (this.#counts.get(runningKey(line.text)) ?? 0) < least;
      texts.push(
        [lines, notes]
          .map((part) => paragraphsOf(part.filter(stays), this.#body!))
          .filter(Boolean)
          .join("\n\n"),
      );
      this.#given++;
      const drop = Math.min(this.#from, this.#given) - this.#first;
      if (drop > 0) {
        this.#laid.splice(0, drop);
        this.#first += drop;
      }
    }
    return texts;
  }

  #count(page: number, by: 1 | -1): void {
    for (const key of this.#laid[page - this.#first]!.keys) {
      const count = (this.#counts.get(key) ?? 0) + by;
      if (count === 0) this.#counts.delete(key);
      else this.#counts.set(key, count);
    }
  }
}

/**
 * Where the text block stands: the most common left and right ends of long lines of body text
 * (at least 40 characters in the most common size). A right end counts only where at least a third
 * of those lines reach it, as justified text does: ragged text has no right edge to stand beyond.
 */
function textBlock(pages: readonly PdfLine[][]): { left: number; right: number } {
  const { size } = bodyMetrics(pages);
  const long = pages.flat().filter((line) => line.size === size && line.text.length >= 40);
  const mode = (ends: number[]) => {
    const counts = new Map<number, number>();
    for (const end of ends) counts.set(Math.round(end), (counts.get(Math.round(end)) ?? 0) + 1);
    return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  };
  const left = mode(long.map((line) => line.left)) ?? -Infinity;
  const right = mode(long.map((line) => line.right));
  const reaching = long.filter((line) => right !== undefined && Math.abs(line.right - right) <= 1);
  return {
    left,
    right: right !== undefined && reaching.length * 3 >= long.length ? right : Infinity,
  };
}

/**
 * The lines of a page, in the order of its content: a line ends where pdfjs saw a line end, or
 * where the next item stands on another baseline to the left of the last one. A space is put
 * between two items that stand apart by more than a fifth of the font size, since some PDFs place
 * words without a space character between them.
 */
export function linesOf(items: readonly PdfTextItem[]): PdfLine[] {
  const lines: PdfLine[] = [];
  let parts: PdfTextItem[] = [];
  // The line's last item with text, kept as it goes rather than searched for, so that a line of
  // many items costs no more than their number.
  let last: PdfTextItem | undefined;
  const end = () => {
    const line = lineOf(parts);
    if (line) lines.push(line);
    parts = [];
    last = undefined;
  };
  for (const item of items) {
    const inked = item.str.trim() !== "";
    if (last && inked) {
      const size = Math.max(last.height, item.height, 1);
      const below = Math.abs(y(item) - y(last)) > size * 0.6;
      if (below && x(item) < x(last) + last.width) end();
    }
    parts.push(item);
    if (inked) last = item;
    if (item.hasEOL) end();
  }
  end();
  return lines;
}

function x(item: PdfTextItem): number {
  return item.transform[4] ?? 0;
}

function y(item: PdfTextItem): number {
  return item.transform[5] ?? 0;
}

function lineOf(parts: readonly PdfTextItem[]): PdfLine | undefined {
  const inked = parts.filter((part) => part.str.trim() !== "");
  if (inked.length === 0) return undefined;
  let text = "";
  let previous: PdfTextItem | undefined;
  for (const part of parts) {
    if (previous && part.str.trim() !== "" && !/\s$/.test(text) && !/^\s/.test(part.str)) {
      const gap = x(part) - (x(previous) + previous.width);
      if (gap > Math.max(previous.height, part.height) * 0.2) text += " ";
    }
    text += part.str;
    if (part.str.trim() !== "") previous = part;
  }
  const characters = new Map<number, number>();
  for (const part of inked) {
    const size = Math.round(part.height * 10) / 10;
    characters.set(size, (characters.get(size) ?? 0) + part.str.length);
  }
  const size = [...characters].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]![0];
  const first = inked[0]!;
  const last = inked.at(-1)!;
  return {
    text: text.replace(/\s+/g, " ").trim(),
    y: y(inked.find((part) => Math.round(part.height * 10) / 10 === size) ?? first),
    left: inked.reduce((left, part) => Math.min(left, x(part)), x(first)),
    right: inked.reduce(
      (right, part) => Math.max(right, x(part) + part.width),
      x(last) + last.width,
    ),
    size,
  };
}

/**
 * The key of a line that may repeat as a running header or footer: its words in lower case with
 * every number (arabic, or a lone roman one) as `#`, so that "Page 3 of 9" and "Page 4 of 9" match.
 */
function runningKey(text: string): string {
  const key = text.toLowerCase().replace(/\s+/g, " ").trim();
  if (/^[ivxlcdm]+$/.test(key)) return "#";
  return key.replace(/\d+/g, "#");
}

/** How many lines at the top and at the bottom of a page may be running headers or footers. */
const EDGE_LINES = 2;

function edgeLines(lines: readonly PdfLine[]): Set<PdfLine> {
  const byHeight = [...lines].sort((a, b) => b.y - a.y);
  return new Set([...byHeight.slice(0, EDGE_LINES), ...byHeight.slice(-EDGE_LINES)]);
}

/** What the paragraphs of a document are judged by: its body text's size and line spacing. */
export interface BodyMetrics {
  /** The font size of most of the document's characters. */
  size: number;
  /** The most common distance between the baselines of two lines of body text. */
  leading: number;
}

/** The size and line spacing of a document's body text. */
export function bodyMetrics(pages: readonly PdfLine[][]): BodyMetrics {
  const sizes = new Map<number, number>();
  for (const line of pages.flat()) {
    sizes.set(line.size, (sizes.get(line.size) ?? 0) + line.text.length);
  }
  const size = [...sizes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 10;
  const gaps = new Map<number, number>();
  for (const lines of pages) {
    for (let i = 1; i < lines.length; i++) {
      const [above, below] = [lines[i - 1]!, lines[i]!];
      if (above.size !== size || below.size !== size) continue;
      const gap = Math.round((above.y - below.y) * 2) / 2;
      if (gap > size * 0.5 && gap < size * 3) gaps.set(gap, (gaps.get(gap) ?? 0) + 1);
    }
  }
  const leading = [...gaps].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? size * 1.2;
  return { size, leading };
}

/**
 * The text of a page: its lines joined into paragraphs, a blank line between two paragraphs. A
 * paragraph ends where the next line stands further below than body lines do (by a third of the
 * line spacing), stands above (a new column or a float), is set in another font size (a heading,
 * a footnote), or starts indented after a line that ended short of the right margin (a first line
 * indented in the way of TeX). A word hyphenated at the end of a line is joined again with the
 * next line's lower-case start.
 */
export function paragraphsOf(lines: readonly PdfLine[], body: BodyMetrics): string {
  const right = lines
    .filter((line) => sameSize(line.size, body.size))
    .reduce((right, line) => Math.max(right, line.right), 0);
  const paragraphs: string[][] = [];
  lines.forEach((line, i) => {
    const above = lines[i - 1];
    const paragraph = paragraphs.at(-1);
    if (paragraph && above && !startsParagraph(above, line, { body, right })) {
      appendLine(paragraph, line.text);
    } else {
      paragraphs.push([line.text]);
    }
  });
  return paragraphs.map((paragraph) => paragraph.join(" ")).join("\n\n");
}

function sameSize(a: number, b: number): boolean {
  return Math.abs(a - b) <= Math.max(a, b) * 0.08;
}

function startsParagraph(
  above: PdfLine,
  line: PdfLine,
  { body, right }: { body: BodyMetrics; right: number },
): boolean {
  if (!sameSize(above.size, line.size)) return true;
  const leading = body.leading * (line.size / body.size);
  const gap = above.y - line.y;
  // Within a line's height: a part of the same line (a subscript, a mark) that pdfjs cut off.
  if (Math.abs(gap) < line.size * 0.5) return false;
  if (gap < 0 || gap > leading * 1.33) return true;
  const indented = line.left > above.left + line.size * 0.5;
  const endedShort = above.right < right - line.size;
  return indented && endedShort;
}

/**
 * Adds a line to a paragraph's lines, which are joined by spaces; a word hyphenated at the end of
 * the last line is joined with the next line's lower-case start instead. Only the last line is
 * looked at, so a long paragraph costs no more than its length.
 */
function appendLine(paragraph: string[], next: string): void {
  const last = paragraph.at(-1)!;
  if (/\p{L}[-\u00AD\u2010]$/u.test(last) && /^\p{Ll}/u.test(next)) {
    paragraph[paragraph.length - 1] = last.slice(0, -1) + next;
  } else {
    paragraph.push(next);
  }
}
