/**
 * A tiny XML tokenizer for the well-formed XML of Office parts and mammoth's HTML: enough to walk
 * elements in document order, not a validating parser.
 * @module
 */
import { isSpace, type Work } from "../core/text_scan.ts";

/** The text of an XML part: UTF-8, or UTF-16 when it starts with that byte order mark. */
export function decodeXml(bytes: Uint8Array): string {
  const encoding = bytes[0] === 0xff && bytes[1] === 0xfe
    ? "utf-16le"
    : bytes[0] === 0xfe && bytes[1] === 0xff
    ? "utf-16be"
    : "utf-8";
  return new TextDecoder(encoding).decode(bytes);
}

/** A start tag, an end tag, or the decoded text between tags. */
export type XmlToken =
  | { kind: "open"; name: string; attributes: string; selfClosing: boolean }
  | { kind: "close"; name: string }
  | { kind: "text"; text: string };

/**
 * The tokens of an XML or XHTML string, in document order: what a regular
 * expression of markup would find, read in one pass. Such an expression (a
 * name, then attributes that may hold the name's characters, then `>`) tries
 * every split of a tag that never ends, at every `<`: on `<a<a<a...` its
 * work grows with the cube of the text. Here a tag ends at its `>` or fails
 * at the next `<` (neither a tag nor a quoted value holds one in well-formed
 * XML, mammoth's HTML included), a failed `<` is text, and a search for the
 * end of a comment, a CDATA section or a declaration that found none is not
 * made again: no character is read more than a few times. `work` counts them,
 * for a test.
 */
export function* xmlTokens(xml: string, work: Work = { steps: 0 }): Generator<XmlToken> {
  const ends = new Ends(xml, work);
  let text = 0;
  let at = 0;
  while (true) {
    const open = xml.indexOf("<", at);
    work.steps += (open < 0 ? xml.length : open + 1) - at;
    if (open < 0) break;
    const markup = markupAt(xml, open, ends, work);
    if (markup === undefined) {
      // Not markup: the "<" is text.
      at = open + 1;
      continue;
    }
    if (open > text) yield { kind: "text", text: decodeEntities(xml.slice(text, open)) };
    if (markup.token) yield markup.token;
    text = at = markup.end;
  }
  if (text < xml.length) yield { kind: "text", text: decodeEntities(xml.slice(text)) };
}

/** The markup that starts at the `<` at `open`, and where it ends; none when it is not markup. */
function markupAt(
  xml: string,
  open: number,
  ends: Ends,
  work: Work,
): { token?: XmlToken; end: number } | undefined {
  if (xml.startsWith("!--", open + 1)) {
    const close = ends.after("-->", open + 4);
    if (close >= 0) return { end: close + 3 };
  } else if (xml.startsWith("![CDATA[", open + 1)) {
    const close = ends.after("]]>", open + 9);
    if (close >= 0) {
      return { token: { kind: "text", text: xml.slice(open + 9, close) }, end: close + 3 };
    }
  }
  const next = xml[open + 1];
  // A declaration or a processing instruction, and a comment or CDATA section that never ends.
  if (next === "?" || next === "!") {
    const close = ends.after(">", open + 2);
    return close < 0 ? undefined : { end: close + 1 };
  }
  const slash = next === "/";
  let i = slash ? open + 2 : open + 1;
  const nameStart = i;
  while (i < xml.length && !endsName(xml.charCodeAt(i))) {
    work.steps++;
    i++;
  }
  if (i === nameStart) return undefined;
  const name = xml.slice(nameStart, i);
  const attributesStart = i;
  while (i < xml.length) {
    work.steps++;
    const character = xml[i];
    if (character === ">") break;
    if (character === "<") return undefined;
    if (character === '"' || character === "'") {
      i++;
      while (i < xml.length && xml[i] !== character && xml[i] !== "<") {
        work.steps++;
        i++;
      }
      if (xml[i] !== character) return undefined;
    }
    i++;
  }
  if (i === xml.length) return undefined;
  if (slash) return { token: { kind: "close", name }, end: i + 1 };
  const attributes = xml.slice(attributesStart, i);
  const selfClosing = attributes.endsWith("/");
  return {
    token: {
      kind: "open",
      name,
      attributes: selfClosing ? attributes.slice(0, -1) : attributes,
      selfClosing,
    },
    end: i + 1,
  };
}

/** White space, `/`, `>`, `<` or a quote: what ends a tag's name. */
function endsName(code: number): boolean {
  return isSpace(code) || code === 0x2f || code === 0x3e || code === 0x3c || code === 0x22 ||
    code === 0x27;
}

/**
 * Searches for the ends of comments, CDATA sections and declarations. A
 * search that found none is not made again from a later position: it would
 * find none either, and `<!--` repeated without an end would make each
 * search read the rest of the text.
 */
class Ends {
  #none = new Set<string>();

  constructor(private readonly xml: string, private readonly work: Work) {}

  /** Where `end` is first found from `from`, or -1. */
  after(end: string, from: number): number {
    if (this.#none.has(end)) return -1;
    const found = this.xml.indexOf(end, from);
    this.work.steps += (found < 0 ? this.xml.length : found + end.length) - from;
    if (found < 0) this.#none.add(end);
    return found;
  }
}

/**
 * The decoded value of the attribute `name` in a tag's attribute string, if
 * it is there: the first `name="value"` or `name='value'`. Read in one pass:
 * a name is read from the start of its run of characters only (an attempt
 * from inside the run would meet the same `=` and value), so a long run is
 * not read again from each of its characters.
 */
export function attribute(
  attributes: string,
  name: string,
  work: Work = { steps: 0 },
): string | undefined {
  const skip = (from: number, test: (code: number) => boolean) => {
    let i = from;
    while (i < attributes.length && test(attributes.charCodeAt(i))) i++;
    work.steps += i - from;
    return i;
  };
  let i = 0;
  while (i < attributes.length) {
    const start = skip(i, endsAttributeName);
    i = skip(start, (code) => !endsAttributeName(code));
    if (i === start) break;
    let j = skip(i, isSpace);
    if (attributes[j] !== "=") continue;
    j = skip(j + 1, isSpace);
    const quote = attributes[j];
    if (quote !== '"' && quote !== "'") continue;
    const close = attributes.indexOf(quote, j + 1);
    // A quote that is not closed is closed by none later: each kind fails to the end once.
    work.steps += (close < 0 ? attributes.length : close + 1) - j;
    if (close < 0) continue;
    if (attributes.slice(start, i) === name) return decodeEntities(attributes.slice(j + 1, close));
    i = close + 1;
  }
  return undefined;
}

/** White space or `=`: what an attribute's name is not made of. */
function endsAttributeName(code: number): boolean {
  return isSpace(code) || code === 0x3d;
}

/** The local part of a qualified name: `t` for `a:t`. */
export function localName(name: string): string {
  return name.slice(name.indexOf(":") + 1);
}

const NAMED: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
};

/**
 * Decodes the five XML entities and character references. One pass over the string, so an
 * `&amp;lt;` becomes `&lt;` and is not decoded twice; unknown entities stay as they are.
 */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(
    /&(?:#[xX]([0-9a-fA-F]+)|#([0-9]+)|([a-zA-Z]+));/g,
    (all, hex, dec, named) => {
      if (named !== undefined) return NAMED[named] ?? all;
      const code = hex !== undefined ? parseInt(hex, 16) : Number(dec);
      const valid = code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
      return valid ? String.fromCodePoint(code) : "\ufffd";
    },
  );
}

/** The deepest nesting of elements {@linkcode xmlShape} accepts. */
export const MAX_XML_DEPTH = 1_000;

/** The counts {@linkcode xmlShape} refuses past, besides {@linkcode MAX_XML_DEPTH}. */
export interface XmlLimits {
  /** The most elements, self-closing ones included. */
  elements?: number;
  /**
   * The most elements of some local names, each with what a message calls them:
   * `{ p: [100_000, "paragraphs"] }`.
   */
  named?: Readonly<Record<string, readonly [max: number, noun: string]>>;
}

/** What {@linkcode xmlShape} found: the first problem, if any, and the elements it counted. */
export interface XmlShape {
  problem?: string;
  /** The elements counted, up to where a problem stopped the count. */
  elements: number;
}

/**
 * The shape of an XML document, checked in one pass before a library parses it: a start tag
 * without its end tag (or the other way round), elements nested deeper than
 * {@linkcode MAX_XML_DEPTH}, or more elements than the limits allow, since some libraries parse
 * unclosed elements in quadratic time, recurse once per level of nesting, and build a tree whose
 * memory grows with every element. It stops at the first problem.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { xmlShape } from "./_xml.ts";
 * assert.deepEqual(xmlShape("<a><b/><b/></a>"), { elements: 3 });
 * assert.deepEqual(xmlShape("<a><b/><b/></a>", { named: { b: [1, "bees"] } }), {
 *   problem: "has more than 1 bees",
 *   elements: 3,
 * });
 * ```
 */
export function xmlShape(xml: string, limits: XmlLimits = {}, work?: Work): XmlShape {
  const { elements: maxElements = Infinity, named = {} } = limits;
  const counts = new Map<string, number>();
  const open: string[] = [];
  let elements = 0;
  for (const token of xmlTokens(xml, work)) {
    if (token.kind === "text") continue;
    if (token.kind === "open") {
      if (++elements > maxElements) {
        return { problem: `has more than ${count(maxElements)} elements`, elements };
      }
      const local = localName(token.name);
      const limit = named[local];
      if (limit) {
        const seen = (counts.get(local) ?? 0) + 1;
        counts.set(local, seen);
        if (seen > limit[0]) {
          return { problem: `has more than ${count(limit[0])} ${limit[1]}`, elements };
        }
      }
      if (token.selfClosing) continue;
      open.push(token.name);
      if (open.length > MAX_XML_DEPTH) {
        return { problem: `nests elements more than ${count(MAX_XML_DEPTH)} deep`, elements };
      }
    } else if (open.pop() !== token.name) return { problem: "is not well-formed XML", elements };
  }
  return open.length ? { problem: "is not well-formed XML", elements } : { elements };
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}
