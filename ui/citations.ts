/**
 * An answer's `[n]` markers as links to its sources: `[2]`, `[1, 2]` and
 * `[1][2]` become one link per number, which opens that source; a number
 * without a source stays in the text, flagged as such.
 * @module
 */
import type { Source } from "./api_types.ts";
import { HAS_MARKER, splitCitations } from "./citation_markers.ts";
import { formatLocation } from "./location.ts";

/** Where markers are text of their own, not citations. */
const LITERAL = "code, pre, a, kbd, samp";

/** The attribute of a citation link that holds its source's number. */
export const SOURCE_ATTRIBUTE = "data-source";

/**
 * Replaces the markers in the text of `root` (but not in code or links) by
 * links to the sources, `<a class="citation" data-source="2">`, whose clicks
 * the caller handles; a number without a source becomes a flagged
 * `<span class="citation missing">`.
 */
export function linkCitations(root: DocumentFragment | Element, sources: Source[]): void {
  const document = root.ownerDocument ?? globalThis.document;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node as Text;
    if (!text.parentElement?.closest(LITERAL) && HAS_MARKER.test(text.data)) texts.push(text);
  }
  for (const text of texts) {
    const nodes = splitCitations(text.data).flatMap((part): Node[] =>
      typeof part === "string"
        ? [document.createTextNode(part)]
        : part.numbers.map((number) => citation(document, number, sources))
    );
    text.replaceWith(...nodes);
  }
}

function citation(document: Document, number: number, sources: Source[]): Element {
  const source = sources[number - 1];
  if (!source) {
    const missing = document.createElement("span");
    missing.className = "citation missing";
    missing.textContent = `[${number}?]`;
    missing.title = `There is no source ${number}: the answer cites a passage it was not given`;
    missing.setAttribute("aria-label", `Source ${number}, which does not exist`);
    return missing;
  }
  const link = document.createElement("a");
  link.className = "citation";
  link.href = `#source-${number}`;
  link.setAttribute(SOURCE_ATTRIBUTE, String(number));
  link.textContent = `[${number}]`;
  const location = formatLocation(source.location, source.document.name);
  const label = `Source ${number}: ${source.document.name}${location ? `, ${location}` : ""}`;
  link.title = label;
  link.setAttribute("aria-label", label);
  return link;
}
