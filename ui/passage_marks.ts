/**
 * A source's passage marked in a document rendered as HTML (a Word
 * document, Markdown, a slide, text): the rendered text is compared word by
 * word with the passage (see `passage.ts`), and each text node's part of it
 * is wrapped in a `<mark>`.
 * @module
 */
import { findPassage } from "./passage.ts";

/** The elements whose texts never run into each other's words. */
const BLOCKS = "p,h1,h2,h3,h4,h5,h6,li,td,th,pre,blockquote,dt,dd,section,div";

/** Marks `passage` in the text of `root`; the marks, first first (none when it is not there). */
export function markPassageIn(root: Element, passage: string): HTMLElement[] {
  if (!passage.trim()) return [];
  const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  const offsets: number[] = [];
  let text = "";
  let lastBlock: Element | null = null;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const textNode = node as Text;
    const block = textNode.parentElement?.closest(BLOCKS) ?? null;
    // Texts of two blocks are two lines; texts within one block run on (`<b>12</b>%`).
    if (nodes.length > 0 && block !== lastBlock) text += "\n";
    lastBlock = block;
    offsets.push(text.length);
    nodes.push(textNode);
    text += textNode.data;
  }
  const span = findPassage(text, passage);
  if (!span) return [];
  const marks: HTMLElement[] = [];
  nodes.forEach((node, index) => {
    const start = Math.max(span.start - offsets[index]!, 0);
    const end = Math.min(span.end - offsets[index]!, node.length);
    if (start >= end || !node.data.slice(start, end).trim()) return;
    const range = root.ownerDocument.createRange();
    range.setStart(node, start);
    range.setEnd(node, end);
    const mark = root.ownerDocument.createElement("mark");
    mark.className = "passage-mark";
    range.surroundContents(mark);
    marks.push(mark);
  });
  return marks;
}
