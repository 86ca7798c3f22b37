/**
 * Answers as Markdown: parsed by marked, sanitized by DOMPurify, returned as
 * a DOM fragment so that no unsanitized HTML ever reaches the page.
 * @module
 */
import DOMPurify from "dompurify";
import { Marked, type TokenizerAndRendererExtension } from "marked";
import { emojiOf } from "./emoji.ts";

/** `:rocket:` as 🚀 in text, but not in code spans or blocks, which marked keeps apart. */
const emoji: TokenizerAndRendererExtension = {
  name: "emoji",
  level: "inline",
  start: (source) => source.indexOf(":"),
  tokenizer(source) {
    const match = /^:([a-z0-9_+-]+):/.exec(source);
    const text = match && emojiOf(match[1]!);
    return text ? { type: "emoji", raw: match[0], text } : undefined;
  },
  renderer: (token) => token.text,
};

/**
 * An image becomes a link to it: loading a picture from an address that a
 * document or a model wrote would tell that address who reads the answer.
 */
const imagesAsLinks = {
  image({ href, text }: { href: string; text: string }): string {
    return `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`;
  },
};

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  extensions: [emoji],
  renderer: imagesAsLinks,
});

/** What answers may not contain even as raw HTML: media that loads by itself, and forms. */
const FORBID_TAGS = [
  "img",
  "picture",
  "video",
  "audio",
  "source",
  "style",
  "form",
  "input",
  "button",
  "textarea",
  "select",
];

let hooked = false;

/** The Markdown text as a sanitized DOM fragment; links open in a new tab. */
export function renderMarkdown(text: string): DocumentFragment {
  if (!hooked) {
    DOMPurify.addHook("afterSanitizeAttributes", (node) => {
      if (node.tagName === "A" && node.getAttribute("href")) {
        node.setAttribute("target", "_blank");
        node.setAttribute("rel", "noopener noreferrer");
      }
    });
    hooked = true;
  }
  const html = marked.parse(text) as string;
  return DOMPurify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    USE_PROFILES: { html: true },
    FORBID_TAGS,
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
