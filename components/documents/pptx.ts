/**
 * PowerPoint presentations, read with jszip after the ZIP guard.
 * @module
 */
import { posix } from "node:path";
import { quote, unreadable } from "../core/errors.ts";
import type { Page } from "../core/page.ts";
import { attribute, localName, xmlTokens } from "./_xml.ts";
import type { DocumentHandler } from "./handler.ts";
import { checkZip } from "./zip.ts";

/**
 * Reads `.pptx` files into one page per slide, numbered from 1 in presentation order. A slide's
 * text is the text of its shapes in document order, grouped shapes included: one line per
 * paragraph, and one line per table row with its cells separated by `" | "`; its title (the
 * title placeholder's text) is a paragraph of its own, a blank line after it. An empty slide gives
 * a page with the text `""`.
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
  extractPages: extractPptxPages,
};

type JSZip = typeof import("jszip");

let jszip: Promise<JSZip> | undefined;

/** Loads jszip on first use, so that start-up does not pay for it. */
function loadJSZip(): Promise<JSZip> {
  jszip ??= import("jszip").then((module) => module.default);
  return jszip;
}

async function extractPptxPages(bytes: Uint8Array, name: string): Promise<Page[]> {
  const entries = checkZip(bytes, name, { suffix: ".pptx" });
  if (!entries.some((entry) => entry.name === "ppt/presentation.xml")) {
    throw unreadable(name, "the file is not a PowerPoint presentation");
  }
  const JSZip = await loadJSZip();
  let zip: InstanceType<JSZip>;
  try {
    zip = await JSZip.loadAsync(bytes);
  } catch (error) {
    throw unreadable(name, "the file is not a valid PowerPoint presentation", error);
  }
  const read = async (path: string) => {
    const file = zip.file(path);
    if (!file) throw unreadable(name, `the part ${quote(path)} is missing`);
    return await file.async("string");
  };
  const paths = slidePaths(
    await read("ppt/presentation.xml"),
    await read("ppt/_rels/presentation.xml.rels"),
  );
  const pages: Page[] = [];
  for (const [index, path] of paths.entries()) {
    pages.push({ text: slideText(await read(path)), number: index + 1 });
  }
  return pages;
}

/** The paths of the slide parts in presentation order: `p:sldIdLst`, each `r:id` through the rels. */
function slidePaths(presentation: string, relationships: string): string[] {
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
    }
  }
  return [...paths];
}

/** The text of a slide: paragraphs as lines, table rows as lines of cells joined by " | ". */
function slideText(xml: string): string {
  const lines: string[] = [];
  let line = "";
  let inText = false;
  let cells: string[] | null = null;
  // Inside mc:Fallback, which repeats the text of the mc:Choice before it.
  let fallbackDepth = 0;
  // In the shape of the slide's title (its placeholder of type title).
  let inTitle = false;
  for (const token of xmlTokens(xml)) {
    if (token.kind === "text") {
      if (inText && !fallbackDepth) line += token.text;
      continue;
    }
    const tag = localName(token.name);
    const open = token.kind === "open";
    if (tag === "Fallback" && !(open && token.selfClosing)) fallbackDepth += open ? 1 : -1;
    // The title is a paragraph of its own (blank lines around it), read as the slide's heading.
    if (token.kind === "open" && tag === "ph" && !fallbackDepth) {
      inTitle = /^(?:title|ctrTitle)$/.test(attribute(token.attributes, "type") ?? "");
      if (inTitle && lines.length > 0 && lines.at(-1) !== "") lines.push("");
    } else if (tag === "sp" && !open && inTitle) {
      inTitle = false;
      if (lines.length > 0 && lines.at(-1) !== "") lines.push("");
    }
    if (fallbackDepth || (open && token.selfClosing && tag !== "br")) continue;
    if (tag === "t") inText = open;
    else if (tag === "br") line += "\n";
    else if (tag === "p" && !open) {
      const paragraph = line.trim();
      line = "";
      if (cells) cells.push(`${cells.pop() ?? ""} ${paragraph}`.trim());
      else if (paragraph) lines.push(paragraph);
    } else if (tag === "tr") cells = open ? [] : endRow(cells, lines);
    else if (tag === "tc" && open && cells) cells.push("");
  }
  while (lines.at(-1) === "") lines.pop();
  return lines.join("\n");
}

/** Adds the row as one line, unless all its cells are empty; there is no current row after it. */
function endRow(cells: string[] | null, lines: string[]): null {
  const row = (cells ?? []).map((cell) => cell.replace(/\s+/g, " "));
  if (row.some((cell) => cell)) lines.push(row.join(" | "));
  return null;
}
