/**
 * A tiny XML tokenizer for the well-formed XML of Office parts and mammoth's HTML: enough to walk
 * elements in document order, not a validating parser.
 * @module
 */

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

/** The deepest nesting of elements {@linkcode xmlShapeProblem} accepts. */
export const MAX_XML_DEPTH = 1_000;

/**
 * What is wrong with the shape of an XML document, if anything: a start tag without its end tag
 * (or the other way round), or elements nested deeper than {@linkcode MAX_XML_DEPTH}. Checked in
 * one pass before a library parses the XML, since some parse unclosed elements in quadratic time
 * and recurse once per level of nesting.
 */
export function xmlShapeProblem(xml: string): string | undefined {
  const open: string[] = [];
  for (const match of xml.matchAll(MARKUP)) {
    const [, , slash, name, attributes = ""] = match;
    if (name === undefined || attributes.endsWith("/")) continue;
    if (!slash) {
      open.push(name);
      if (open.length > MAX_XML_DEPTH) {
        return `nests elements more than ${MAX_XML_DEPTH.toLocaleString("en-US")} deep`;
      }
    } else if (open.pop() !== name) return "is not well-formed XML";
  }
  return open.length ? "is not well-formed XML" : undefined;
}
