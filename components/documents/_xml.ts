/**
 * A tiny XML tokenizer for the well-formed XML of Office parts and mammoth's HTML: enough to walk
 * elements in document order, not a validating parser.
 * @module
 */

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

// Comments, CDATA (group 1), declarations and processing instructions, or a tag: "/" (group 2),
// name (group 3), attributes (group 4), whose quoted values may hold ">".
const MARKUP =
  /<(?:!--[\s\S]*?-->|!\[CDATA\[([\s\S]*?)\]\]>|[?!][^>]*>|(\/?)([^\s/>]+)((?:[^>"']|"[^"]*"|'[^']*')*)>)/g;

/** The tokens of an XML or XHTML string, in document order. */
export function* xmlTokens(xml: string): Generator<XmlToken> {
  let end = 0;
  for (const match of xml.matchAll(MARKUP)) {
    if (match.index > end) {
      yield { kind: "text", text: decodeEntities(xml.slice(end, match.index)) };
    }
    end = match.index + match[0].length;
    const [, cdata, slash, name, attributes = ""] = match;
    if (cdata !== undefined) yield { kind: "text", text: cdata };
    else if (name === undefined) continue;
    else if (slash) yield { kind: "close", name };
    else {
      const selfClosing = attributes.endsWith("/");
      yield {
        kind: "open",
        name,
        attributes: selfClosing ? attributes.slice(0, -1) : attributes,
        selfClosing,
      };
    }
  }
  if (end < xml.length) yield { kind: "text", text: decodeEntities(xml.slice(end)) };
}

/** The decoded value of the attribute `name` in a tag's attribute string, if it is there. */
export function attribute(attributes: string, name: string): string | undefined {
  for (const match of attributes.matchAll(/([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    if (match[1] === name) return decodeEntities(match[2] ?? match[3] ?? "");
  }
  return undefined;
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
export function xmlShape(xml: string, limits: XmlLimits = {}): XmlShape {
  const { elements: maxElements = Infinity, named = {} } = limits;
  const counts = new Map<string, number>();
  const open: string[] = [];
  let elements = 0;
  for (const match of xml.matchAll(MARKUP)) {
    const [, , slash, name, attributes = ""] = match;
    if (name === undefined) continue;
    if (!slash) {
      if (++elements > maxElements) {
        return { problem: `has more than ${count(maxElements)} elements`, elements };
      }
      const local = localName(name);
      const limit = named[local];
      if (limit) {
        const seen = (counts.get(local) ?? 0) + 1;
        counts.set(local, seen);
        if (seen > limit[0]) {
          return { problem: `has more than ${count(limit[0])} ${limit[1]}`, elements };
        }
      }
    }
    if (attributes.endsWith("/")) continue;
    if (!slash) {
      open.push(name);
      if (open.length > MAX_XML_DEPTH) {
        return { problem: `nests elements more than ${count(MAX_XML_DEPTH)} deep`, elements };
      }
    } else if (open.pop() !== name) return { problem: "is not well-formed XML", elements };
  }
  return open.length ? { problem: "is not well-formed XML", elements } : { elements };
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}
