/**
 * PowerPoint presentations, read after the ZIP guard from the parts it checked.
 * @module
 */
import { posix } from "node:path";
import { quote, type SvcError, unreadable } from "../core/errors.ts";
import type { Page } from "../core/page.ts";
import { attribute, decodeXml, localName, xmlTokens } from "./_xml.ts";
import type { DocumentHandler } from "./handler.ts";
import { checkZip, readEntry, type ZipEntry } from "./zip.ts";

/**
 * Reads `.pptx` files into one page per slide, numbered from 1 in presentation order. A slide's
 * text is the text of its shapes in document order, grouped shapes included: one line per
 * paragraph, and one line per table row with its cells separated by `" | "`; its title (the
 * title placeholder's text) is a paragraph of its own, a blank line after it. An empty slide gives
 * a page with the text `""`.
 *
 * A presentation of more than {@linkcode MAX_SLIDES} slides, or whose slides' XML passes
 * {@linkcode MAX_SLIDE_BYTES} or {@linkcode MAX_SLIDE_ELEMENTS} (each) or
 * {@linkcode MAX_SLIDES_BYTES} or {@linkcode MAX_SLIDES_ELEMENTS} (together), is refused: the sizes
 * before a slide is inflated, the elements as it is read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pptxHandler } from "./pptx.ts";
 * const pages = await pptxHandler.extractPages(await Deno.readFile("tests/fixtures/slides.pptx"), "slides.pptx");
 * assert(pages[1]?.number === 2 && pages[1]?.text.includes("Tomatoes | 120 | North"));
 * ```
 */
export const pptxHandler: DocumentHandler = {
  suffixes: [".pptx"],
  slides: true,
  extractPages: (bytes, name) => {
    try {
      return Promise.resolve(readPptxPages(bytes, name));
    } catch (error) {
      return Promise.reject(error);
    }
  },
};

/** The most slides of a presentation: far more than any deck shown in one sitting has. */
export const MAX_SLIDES = 5_000;

/** The most bytes of one slide's XML: a slide of a large table holds a few hundred kilobytes. */
export const MAX_SLIDE_BYTES = 16 * 2 ** 20;

/** The most bytes of all slides' XML together: some ten times a heavy 300-slide deck's. */
export const MAX_SLIDES_BYTES = 128 * 2 ** 20;

/** The most XML elements of one slide: some fifty times a slide of a large table. */
export const MAX_SLIDE_ELEMENTS = 200_000;

/** The most XML elements of all slides together: some ten times a heavy 300-slide deck's. */
export const MAX_SLIDES_ELEMENTS = 2_000_000;

function readPptxPages(bytes: Uint8Array, name: string): Page[] {
  return readSlides(bytes, name, (xml, counts, number) => ({
    text: slideText(slideLines(xml, counts)),
    number,
  }));
}

/** A slide as the web UI shows it: its title, its blocks in order, and its text as indexed. */
export interface SlideView {
  /** Its number, from 1, in presentation order. */
  number: number;
  /** The text of its title placeholder; null without one. */
  title: string | null;
  /** Its title, text boxes and tables, in document order, each with its place in `text`. */
  blocks: SlideBlock[];
  /** Its text as svc indexes it: the page of {@linkcode pptxHandler}. */
  text: string;
}

/** A block of a slide, with where its text is in the slide's `text` (`start` to `end`). */
export type SlideBlock =
  | { kind: "title"; text: string; start: number; end: number }
  | { kind: "text"; paragraphs: string[]; start: number; end: number }
  | { kind: "table"; rows: string[][]; start: number; end: number };

/**
 * A presentation as the web UI shows it: each slide, in presentation order,
 * as its title, text boxes (their paragraphs) and tables (their rows of
 * cells), with each block's place in the slide's text, so that a source's
 * passage is found in the text and shown in its blocks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { viewPptx } from "./pptx.ts";
 * const slides = viewPptx(await Deno.readFile("tests/fixtures/slides.pptx"), "slides.pptx");
 * const table = slides[1]!.blocks.find((block) => block.kind === "table");
 * assert(table?.kind === "table" && table.rows.some((row) => row.includes("Tomatoes")));
 * ```
 *
 * @throws {SvcError} 422 as the handler refuses the file
 */
export function viewPptx(bytes: Uint8Array, name: string): SlideView[] {
  return readSlides(bytes, name, (xml, counts, number) => {
    const lines = slideLines(xml, counts);
    return { number, ...slideBlocks(lines), text: slideText(lines) };
  });
}

/**
 * Reads each slide of a presentation in order, once the ZIP guard and the
 * limits of its slides' sizes let it through, counting its elements as `read` goes.
 */
function readSlides<T>(
  bytes: Uint8Array,
  name: string,
  read: (xml: string, counts: ElementCounts, number: number) => T,
): T[] {
  const entries = new Map(
    checkZip(bytes, name, { suffix: ".pptx" }).map((entry) => [entry.name, entry]),
  );
  if (!entries.has("ppt/presentation.xml")) {
    throw unreadable(name, "the file is not a PowerPoint presentation");
  }
  const part = (path: string) => {
    const entry = entries.get(path);
    if (!entry) throw unreadable(name, `the part ${quote(path)} is missing`);
    return entry;
  };
  const decoded = (entry: ZipEntry) => decodeXml(readEntry(bytes, entry, name));
  const paths = slidePaths(
    decoded(part("ppt/presentation.xml")),
    decoded(part("ppt/_rels/presentation.xml.rels")),
    name,
  );
  const slides = paths.map(part);
  let total = 0;
  for (const slide of slides) {
    if (slide.uncompressedSize > MAX_SLIDE_BYTES) {
      throw unreadable(
        name,
        `the part ${quote(slide.name)} is larger than ${mebibytes(MAX_SLIDE_BYTES)}`,
      );
    }
    total += slide.uncompressedSize;
    if (total > MAX_SLIDES_BYTES) {
      throw unreadable(name, `its slides are larger than ${mebibytes(MAX_SLIDES_BYTES)} together`);
    }
  }
  const counts = new ElementCounts(name);
  return slides.map((slide, index) => {
    counts.startSlide(slide.name);
    return read(decoded(slide), counts, index + 1);
  });
}

/** Counts the elements of the slides as they are read, each slide's and all of them. */
class ElementCounts {
  readonly #name: string;
  #slide = "";
  #inSlide = 0;
  #inAll = 0;

  constructor(name: string) {
    this.#name = name;
  }

  startSlide(path: string): void {
    this.#slide = path;
    this.#inSlide = 0;
  }

  /** @throws {SvcError} 422 once an element passes a limit */
  count(): void {
    if (++this.#inSlide > MAX_SLIDE_ELEMENTS) {
      throw this.#refuse(`the part ${quote(this.#slide)} has more than`, MAX_SLIDE_ELEMENTS);
    }
    if (++this.#inAll > MAX_SLIDES_ELEMENTS) {
      throw this.#refuse("its slides have more than", MAX_SLIDES_ELEMENTS, " together");
    }
  }

  #refuse(what: string, limit: number, end = ""): SvcError {
    return unreadable(this.#name, `${what} ${limit.toLocaleString("en-US")} elements${end}`);
  }
}

function mebibytes(bytes: number): string {
  return `${bytes / 2 ** 20} MiB`;
}

/** The paths of the slide parts in presentation order: `p:sldIdLst`, each `r:id` through the rels. */
function slidePaths(presentation: string, relationships: string, name: string): string[] {
  const targets = new Map<string, string>();
  for (const token of xmlTokens(relationships)) {
    if (token.kind !== "open" || localName(token.name) !== "Relationship") continue;
    const id = attribute(token.attributes, "Id");
    const target = attribute(token.attributes, "Target");
    // Targets are relative to ppt/, or absolute within the package.
    if (id && target) {
      targets.set(id, target.startsWith("/") ? target.slice(1) : posix.join("ppt", target));
    }
  }
  // A slide part listed twice is read once: otherwise a small file that lists one slide a
  // hundred thousand times makes as many pages, and minutes of work.
  const paths = new Set<string>();
  let inList = false;
  for (const token of xmlTokens(presentation)) {
    if (token.kind === "text" || !["sldIdLst", "sldId"].includes(localName(token.name))) continue;
    if (localName(token.name) === "sldIdLst") inList = token.kind === "open" && !token.selfClosing;
    else if (inList && token.kind === "open") {
      const id = attribute(token.attributes, "r:id");
      const path = id && targets.get(id);
      if (path) paths.add(path);
      if (paths.size > MAX_SLIDES) {
        throw unreadable(name, `it has more than ${MAX_SLIDES.toLocaleString("en-US")} slides`);
      }
    }
  }
  return [...paths];
}

/**
 * A line of a slide's text: a paragraph (of its title or of another shape), a
 * table row, or the blank line that sets a title apart; with the shape it
 * comes from.
 */
interface SlideLine {
  text: string;
  kind: "blank" | "title" | "text" | "row";
  /** The count of shapes (and graphic frames) opened up to it. */
  shape: number;
  /** A row's cells. */
  cells?: string[];
}

/** The text of a slide's lines: one a line. */
function slideText(lines: SlideLine[]): string {
  return lines.map((line) => line.text).join("\n");
}

/**
 * The lines of a slide: paragraphs as lines, table rows as lines of cells
 * joined by " | ", the title a paragraph of its own (blank lines around it).
 */
function slideLines(xml: string, counts: ElementCounts): SlideLine[] {
  const lines: SlideLine[] = [];
  const blank = (shape: number) => {
    if (lines.length > 0 && lines.at(-1)!.kind !== "blank") {
      lines.push({ text: "", kind: "blank", shape });
    }
  };
  let line = "";
  let inText = false;
  let cells: string[] | null = null;
  // Inside mc:Fallback, which repeats the text of the mc:Choice before it.
  let fallbackDepth = 0;
  // In the shape of the slide's title (its placeholder of type title).
  let inTitle = false;
  let shape = 0;
  for (const token of xmlTokens(xml)) {
    if (token.kind === "text") {
      if (inText && !fallbackDepth) line += token.text;
      continue;
    }
    const tag = localName(token.name);
    const open = token.kind === "open";
    if (open) counts.count();
    if (tag === "Fallback" && !(open && token.selfClosing)) fallbackDepth += open ? 1 : -1;
    if (open && !fallbackDepth && (tag === "sp" || tag === "graphicFrame")) shape++;
    // The title is a paragraph of its own (blank lines around it), read as the slide's heading.
    if (token.kind === "open" && tag === "ph" && !fallbackDepth) {
      inTitle = /^(?:title|ctrTitle)$/.test(attribute(token.attributes, "type") ?? "");
      if (inTitle) blank(shape);
    } else if (tag === "sp" && !open && inTitle) {
      inTitle = false;
      blank(shape);
    }
    if (fallbackDepth || (open && token.selfClosing && tag !== "br")) continue;
    if (tag === "t") inText = open;
    else if (tag === "br") line += "\n";
    else if (tag === "p" && !open) {
      const paragraph = line.trim();
      line = "";
      if (cells) cells.push(`${cells.pop() ?? ""} ${paragraph}`.trim());
      else if (paragraph) lines.push({ text: paragraph, kind: inTitle ? "title" : "text", shape });
    } else if (tag === "tr") cells = open ? [] : endRow(cells, lines, shape);
    else if (tag === "tc" && open && cells) cells.push("");
  }
  while (lines.at(-1)?.kind === "blank") lines.pop();
  return lines;
}

/** Adds the row as one line, unless all its cells are empty; there is no current row after it. */
function endRow(cells: string[] | null, lines: SlideLine[], shape: number): null {
  const row = (cells ?? []).map((cell) => cell.replace(/\s+/g, " "));
  if (row.some((cell) => cell)) {
    lines.push({ text: row.join(" | "), kind: "row", shape, cells: row });
  }
  return null;
}

/**
 * A slide's title and blocks: consecutive lines of one kind and one shape
 * make a block, each with its place in the slide's text.
 */
function slideBlocks(lines: SlideLine[]): { title: string | null; blocks: SlideBlock[] } {
  const blocks: SlideBlock[] = [];
  let at = 0;
  let group: { lines: SlideLine[]; start: number } | undefined;
  const close = () => {
    if (!group) return;
    const [first] = group.lines;
    const end = group.start + group.lines.map((line) => line.text).join("\n").length;
    const { start } = group;
    if (first!.kind === "title") {
      blocks.push({ kind: "title", text: group.lines.map((l) => l.text).join("\n"), start, end });
    } else if (first!.kind === "row") {
      blocks.push({ kind: "table", rows: group.lines.map((l) => l.cells!), start, end });
    } else {
      blocks.push({ kind: "text", paragraphs: group.lines.map((l) => l.text), start, end });
    }
    group = undefined;
  };
  for (const line of lines) {
    const same = group && group.lines[0]!.kind === line.kind &&
      group.lines[0]!.shape === line.shape;
    if (!same) close();
    if (line.kind !== "blank") {
      group ??= { lines: [], start: at };
      group.lines.push(line);
    }
    at += line.text.length + 1;
  }
  close();
  const title = blocks.find((block) => block.kind === "title");
  return { title: title?.kind === "title" ? title.text : null, blocks };
}
