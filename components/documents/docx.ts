/**
 * Word documents, read with mammoth after the ZIP guard.
 * @module
 */
import { Buffer } from "node:buffer";
import { quote, unreadable } from "../core/errors.ts";
import type { Page } from "../core/page.ts";
import { attribute, decodeXml, localName, xmlShape, xmlTokens } from "./_xml.ts";
import { tightLines } from "../core/text_scan.ts";
import type { DocumentHandler } from "./handler.ts";
import { checkZip } from "./zip.ts";

/**
 * Reads `.docx` files into one page without a number (Word has no fixed pages). Headings,
 * paragraphs and list items are blocks separated by a blank line; a table is a block with one line
 * per row, its cells separated by `" | "`.
 *
 * One page, not one per paragraph: chunking, not the handler, decides what goes together, and a
 * paragraph per page would cut tables and lists apart.
 *
 * mammoth builds a tree of every element of the parts it reads, so each XML part is counted first,
 * as it is checked to be well-formed, and a file past {@linkcode MAX_DOCX_ELEMENTS},
 * {@linkcode MAX_DOCX_PARAGRAPHS} or {@linkcode MAX_DOCX_RUNS} is refused before mammoth sees it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { docxHandler } from "./docx.ts";
 * const pages = await docxHandler.extractPages(await Deno.readFile("tests/fixtures/notes.docx"), "notes.docx");
 * assert(pages[0]?.text.includes("Cover design | Ana | March 3"));
 * ```
 */
export const docxHandler: DocumentHandler = {
  suffixes: [".docx"],
  extractPages: extractDocxPages,
};

/**
 * The most XML elements of one part, and of all parts together: a 500-page Word book has about a
 * quarter of that in its text, and mammoth's tree of this many still fits a reader's memory.
 */
export const MAX_DOCX_ELEMENTS = 1_000_000;

/** The most paragraphs of one part: some ten times a 500-page book's. */
export const MAX_DOCX_PARAGRAPHS = 200_000;

/**
 * The most runs (stretches of text of one formatting) of one part: several times a 500-page
 * book's.
 */
export const MAX_DOCX_RUNS = 500_000;

const PART_LIMITS = {
  elements: MAX_DOCX_ELEMENTS,
  named: { p: [MAX_DOCX_PARAGRAPHS, "paragraphs"], r: [MAX_DOCX_RUNS, "runs"] },
} as const;

type Mammoth = typeof import("mammoth");

let mammoth: Promise<Mammoth> | undefined;

async function extractDocxPages(bytes: Uint8Array, name: string): Promise<Page[]> {
  return [{ text: readHtml(await docxHtml(bytes, name)).text, number: null }];
}

/**
 * A Word document as the web UI shows it: its HTML, sanitised (the elements
 * of headings, paragraphs, lists, tables and inline emphasis, links to web
 * and mail addresses only, no images), and its text as svc indexes it (the
 * page of {@linkcode docxHandler}). Each block element that holds text (a
 * paragraph, heading, list item or table) says where that text is in it with
 * `data-start` and `data-end`, so that a source's passage is found in the text
 * and shown in the HTML.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { viewDocx } from "./docx.ts";
 * const { html, text } = await viewDocx(await Deno.readFile("tests/fixtures/notes.docx"), "notes.docx");
 * assert(html.startsWith('<h1 data-start="0" data-end="13">Meeting notes</h1>'));
 * assert(text.startsWith("Meeting notes\n\n"));
 * ```
 *
 * @throws {SvcError} 422 as the handler refuses the file
 */
export async function viewDocx(
  bytes: Uint8Array,
  name: string,
): Promise<{ html: string; text: string }> {
  return readHtml(await docxHtml(bytes, name));
}

/** mammoth's HTML of a Word document, once the ZIP guard and the limits let it through. */
async function docxHtml(bytes: Uint8Array, name: string): Promise<string> {
  let elements = 0;
  const entries = checkZip(bytes, name, {
    suffix: ".docx",
    inspect(entry, content) {
      if (!/\.(xml|rels)$/i.test(entry.name)) return;
      const shape = xmlShape(decodeXml(content), PART_LIMITS);
      if (shape.problem) throw unreadable(name, `the part ${quote(entry.name)} ${shape.problem}`);
      elements += shape.elements;
      if (elements > MAX_DOCX_ELEMENTS) {
        throw unreadable(
          name,
          `its XML parts have more than ${MAX_DOCX_ELEMENTS.toLocaleString("en-US")} elements`,
        );
      }
    },
  });
  if (!entries.some((entry) => entry.name === "word/document.xml")) {
    throw unreadable(name, "the file is not a Word document");
  }
  const { convertToHtml, images } = await loadMammoth();
  try {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // Images become empty <img> tags rather than base64 data URIs nobody reads.
    const convertImage = images.imgElement(() => Promise.resolve({ src: "" }));
    return (await convertToHtml({ buffer }, { convertImage })).value;
  } catch (error) {
    throw unreadable(name, "the file is not a valid Word document", error);
  }
}

/**
 * Loads mammoth on first use. Its lib/promises.js sets `ExternalPromise.__proto__ = Promise` when
 * it loads, and Deno's `__proto__` setter only defines an own property, so mammoth would break.
 * The standard accessor is put on `Object.prototype` just while mammoth loads and what was there
 * before is put back, so the rest of the process keeps Deno's behaviour and needs no
 * `--unsafe-proto`. Later `__proto__` writes in mammoth only tag the promises it returns with a
 * `done` method, which svc does not use.
 */
function loadMammoth(): Promise<Mammoth> {
  mammoth ??= (async () => {
    const before = Object.getOwnPropertyDescriptor(Object.prototype, "__proto__");
    Object.defineProperty(Object.prototype, "__proto__", {
      get(this: unknown) {
        return Object.getPrototypeOf(this);
      },
      set(this: unknown, prototype: unknown) {
        const settable = typeof prototype === "object" || typeof prototype === "function";
        if (settable && Object(this) === this) Object.setPrototypeOf(this, prototype as object);
      },
      configurable: true,
    });
    try {
      return (await import("mammoth")).default;
    } finally {
      if (before) Object.defineProperty(Object.prototype, "__proto__", before);
      else delete (Object.prototype as { __proto__?: unknown }).__proto__;
    }
  })();
  return mammoth;
}

const BLOCKS = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "ul", "ol", "blockquote"]);

/** The elements the view keeps; any other is left out, its text kept. */
const KEPT = new Set([
  ...BLOCKS,
  "table",
  "thead",
  "tbody",
  "tr",
  "td",
  "th",
  "strong",
  "em",
  "u",
  "s",
  "sub",
  "sup",
  "br",
  "a",
]);

/** The elements whose text the view locates in the page's text. */
const LOCATED = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "table"]);

interface Table {
  rows: string[];
  cells: string[];
  /** The element of the view that gets the table's place in the text. */
  located: Located | undefined;
}

/** An element of the view whose text is found in the page's text: the blocks it holds. */
interface Located {
  /** The index in the output of its start tag's end, where its place goes. */
  out: number;
  blocks: number[];
}

/**
 * The text of mammoth's HTML (blocks joined by a blank line, a table's rows
 * one line each), and the HTML sanitised, each element that holds blocks
 * marked with their place in the text.
 */
function readHtml(html: string): { text: string; html: string } {
  const blocks: string[] = [];
  const tables: Table[] = [];
  const out: string[] = [];
  // The elements kept and open, innermost last, with the place of those that are located.
  const open: { tag: string; located?: Located }[] = [];
  const located: Located[] = [];
  let text = "";
  const owner = () => open.findLast((element) => element.located)?.located;
  const addBlock = (block: string, to: Located | undefined) => {
    blocks.push(block);
    to?.blocks.push(blocks.length - 1);
  };
  // Ends the text run so far: a block of its own, or part of the current table cell.
  const flush = () => {
    const block = tightLines(text).trim();
    text = "";
    if (!block) return;
    const table = tables.at(-1);
    if (table) table.cells.push(table.cells.pop()?.concat(" ", block).trim() ?? block);
    else addBlock(block, owner());
  };
  for (const token of xmlTokens(html)) {
    if (token.kind === "text") {
      text += token.text;
      out.push(escapeHtml(token.text));
      continue;
    }
    const tag = localName(token.name).toLowerCase();
    if (token.kind === "open" && tag === "br") text += "\n";
    else if (BLOCKS.has(tag)) flush();
    else if (tag === "table") {
      flush();
      if (token.kind === "close") endTable(tables, addBlock);
    } else if (tag === "tr" || tag === "td" || tag === "th") {
      flush();
      const table = tables.at(-1);
      if (table) {
        if (tag !== "tr" && token.kind === "open") table.cells.push("");
        if (tag === "tr" && token.kind === "close") endRow(table);
      }
    }
    if (!KEPT.has(tag)) continue;
    if (token.kind === "close") {
      const at = open.findLastIndex((element) => element.tag === tag);
      if (at < 0) continue;
      for (const element of open.splice(at).reverse()) out.push(`</${element.tag}>`);
      continue;
    }
    const attributes = safeAttributes(tag, token.attributes);
    // An anchor without an address (a bookmark) is left out: it shows nothing.
    if (tag === "a" && attributes === "") continue;
    out.push(`<${tag}${attributes}`);
    const place = LOCATED.has(tag) ? { out: out.length - 1, blocks: [] } : undefined;
    if (place) located.push(place);
    out.push(">");
    if (tag === "table" && token.kind === "open") {
      tables.push({ rows: [], cells: [], located: place });
    }
    if (tag !== "br" && !token.selfClosing) open.push({ tag, located: place });
    else if (tag !== "br") out.push(`</${tag}>`);
  }
  flush();
  while (tables.length) endTable(tables, addBlock);
  for (const element of open.reverse()) out.push(`</${element.tag}>`);
  // Each block's place in the text, blocks joined by a blank line.
  const starts: number[] = [];
  let at = 0;
  for (const block of blocks) {
    starts.push(at);
    at += block.length + 2;
  }
  for (const { out: index, blocks: held } of located) {
    if (held.length === 0) continue;
    const last = held.at(-1)!;
    out[index] += ` data-start="${starts[held[0]!]}" data-end="${
      starts[last]! + blocks[last]!.length
    }"`;
  }
  return { text: blocks.join("\n\n"), html: out.join("") };
}

/**
 * The attributes an element keeps: a link's address when it is a web, mail
 * or in-document one, a cell's spans when they are numbers.
 */
function safeAttributes(tag: string, attributes: string): string {
  if (tag === "a") {
    const href = attribute(attributes, "href");
    return href && /^(?:https?:|mailto:|#)/i.test(href.trim())
      ? ` href="${escapeHtml(href.trim())}"`
      : "";
  }
  if (tag === "td" || tag === "th") {
    return ["colspan", "rowspan"].map((name) => {
      const value = attribute(attributes, name);
      return value && /^\d{1,4}$/.test(value) ? ` ${name}="${value}"` : "";
    }).join("");
  }
  return "";
}

/** Text as HTML: the characters that markup gives a meaning to, escaped. */
function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

/** Makes the row's cells one line, keeping empty cells so columns stay in place. */
function endRow(table: Table): void {
  const cells = table.cells.map((cell) => cell.replace(/\s+/g, " ").trim());
  table.cells = [];
  if (cells.some((cell) => cell)) table.rows.push(cells.join(" | "));
}

/** A table becomes a block, or, nested in a cell, part of that cell. */
function endTable(
  tables: Table[],
  addBlock: (block: string, to: Located | undefined) => void,
): void {
  const table = tables.pop();
  if (!table) return;
  if (table.cells.length) endRow(table);
  const text = table.rows.join("\n");
  const outer = tables.at(-1);
  if (!text) return;
  if (outer) outer.cells.push(outer.cells.pop()?.concat(" ", text).trim() ?? text);
  else addBlock(text, table.located);
}
