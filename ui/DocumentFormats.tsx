/**
 * Every format but PDF shown as itself, with a source's passage marked and
 * scrolled to: a Word document as its HTML (headings, lists, tables), a
 * presentation slide by slide (title, text boxes, tables), Markdown
 * rendered, and text as text, all as `GET /documents/{id}/view` gives them.
 * @module
 */
import DOMPurify from "dompurify";
import type { JSX } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { type ApiClient, describeError } from "./api_client.ts";
import type { DocumentViewData } from "./api_types.ts";
import { renderMarkdown } from "./markdown.ts";
import { markPassageIn } from "./passage_marks.ts";

/** A document of a format svc shows as itself, at page (slide) `page`. */
export function FormatView(props: {
  api: ApiClient;
  documentId: string;
  /** The passage to mark on this page, if any. */
  passage: string;
  page: number;
  onCount: (count: number) => void;
  onError: (message: string) => void;
  /** Whether the passage was found, once the page is shown with one. */
  onMarked: (found: boolean) => void;
}): JSX.Element {
  const [view, setView] = useState<DocumentViewData | undefined>(undefined);
  const box = useRef<HTMLDivElement>(null);
  const body = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let gone = false;
    props.api.documentView(props.documentId).then((read) => {
      if (gone) return;
      setView(read);
      props.onCount(read.format === "pptx" ? read.slides.length : 1);
    }, (error) => !gone && props.onError(describeError(error)));
    return () => {
      gone = true;
    };
  }, [props.documentId]);

  // The page's content, built anew for each page, with the passage marked; a page without it
  // from its top, not where the last one was left.
  useLayoutEffect(() => {
    const element = body.current;
    if (!view || !element) return;
    element.replaceChildren(render(view, props.page));
    const marks = markPassageIn(element, props.passage);
    if (props.passage) props.onMarked(marks.length > 0);
    if (marks[0]) marks[0].scrollIntoView({ block: "center" });
    else box.current?.scrollTo({ top: 0 });
  }, [view, props.page, props.passage]);

  if (!view) {
    return (
      <p class="document-loading">
        <span class="spinner" aria-hidden="true" /> Reading the document…
      </p>
    );
  }
  return (
    <div class="document-pages" ref={box} tabIndex={0} aria-label="Document text">
      <div class={`document-text ${view.format}`} ref={body} />
    </div>
  );
}

/** What a view shows at page `page`, as nodes of the page. */
function render(view: DocumentViewData, page: number): Node {
  switch (view.format) {
    case "docx":
      // svc sanitised it; sanitised again here, as everything the page shows as HTML.
      return DOMPurify.sanitize(view.html, {
        RETURN_DOM_FRAGMENT: true,
        FORBID_ATTR: ["class", "id", "style", "name", "role", "tabindex"],
      });
    case "markdown":
      return renderMarkdown(view.text);
    case "text": {
      const pre = document.createElement("pre");
      pre.textContent = view.text;
      return pre;
    }
    case "pptx":
      return slide(view.slides[Math.min(page, view.slides.length) - 1]);
    default:
      return document.createTextNode("");
  }
}

type Slide = Extract<DocumentViewData, { format: "pptx" }>["slides"][number];

/** A slide: its title, text boxes and tables, in document order. */
function slide(shown: Slide | undefined): Node {
  const section = document.createElement("section");
  section.className = "slide";
  if (!shown) return section;
  section.setAttribute("aria-label", `Slide ${shown.number}`);
  for (const block of shown.blocks) {
    if (block.kind === "title") {
      const title = document.createElement("h3");
      title.textContent = block.text;
      section.append(title);
    } else if (block.kind === "text") {
      const box = document.createElement("div");
      box.className = "slide-text";
      for (const paragraph of block.paragraphs) {
        const p = document.createElement("p");
        p.textContent = paragraph;
        box.append(p);
      }
      section.append(box);
    } else {
      const table = document.createElement("table");
      for (const row of block.rows) {
        const tr = table.insertRow();
        for (const cell of row) tr.insertCell().textContent = cell;
      }
      section.append(table);
    }
  }
  return section;
}
