/**
 * Answers as Markdown: parsed by marked, sanitized by DOMPurify, returned as
 * a DOM fragment so that no unsanitized HTML ever reaches the page. An answer
 * cannot dress up as the page around it (no `class`, `id`, `style`, `name`,
 * roles or ARIA), and every link shows where it leads.
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

/**
 * Attributes that let an answer pass for the page around it: classes and
 * styles draw a copy of the login card, an `id` or `name` takes the place of
 * one of the page's elements (`<a id="prompt">` would take the question box's
 * focus), `for` clicks one of its controls, and roles, ARIA and `tabindex`
 * change what a screen reader or the keyboard finds.
 */
const FORBID_ATTR = ["class", "id", "style", "name", "for", "role", "tabindex"];

let hooked = false;

/**
 * The Markdown text as a sanitized DOM fragment; links open in a new tab and
 * name their host after their text.
 */
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
  const fragment = DOMPurify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    USE_PROFILES: { html: true },
    FORBID_TAGS,
    FORBID_ATTR,
    ALLOW_ARIA_ATTR: false,
    ALLOW_DATA_ATTR: false,
  });
  for (const link of fragment.querySelectorAll("a[href]")) labelDestination(link);
  return fragment;
}

/**
 * Adds the host a link leads to after its text, `Sign in (evil.example)`, in
 * the link, so that it is part of its accessible name too. A link whose text
 * is its very address (`https://example.com/page`, `example.com`) needs none;
 * a link with no host (`mailto:`) shows its address.
 */
function labelDestination(link: Element): void {
  const destination = destinationOf(link.getAttribute("href") ?? "");
  if (destination === undefined) return;
  // Compared as written: a look-alike host in the text ("аpple.com" with a
  // Cyrillic "а") differs from its punycode, so it gets its label.
  const text = (link.textContent ?? "").trim().toLowerCase();
  const textHost = text.replace(/^[a-z][a-z0-9+.-]*:\/\//, "").replace(/[/?#][\s\S]*$/, "");
  if (text === destination || textHost === destination) return;
  const label = link.ownerDocument.createElement("span");
  label.className = "link-host";
  label.textContent = ` (${destination})`;
  link.append(label);
}

/**
 * Where a link leads, as a reader checks it: its host as the browser reaches
 * it (an internationalized name in punycode, so that look-alike letters do
 * not pass for the real name), else its address without the scheme.
 */
function destinationOf(href: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href, document.baseURI);
  } catch {
    return undefined;
  }
  if (url.host) return url.host;
  const address = url.href.replace(/^[a-z][a-z0-9+.-]*:/i, "");
  try {
    return decodeURIComponent(address).toLowerCase();
  } catch {
    return address.toLowerCase();
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
