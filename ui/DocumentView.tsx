/**
 * A source's document, opened at the source's first page with the passage
 * marked: a PDF page as pdf.js draws it (loaded on demand), any other format
 * as the text svc read from each page. The arrow keys and Page Up/Down step
 * through the pages; Escape closes.
 * @module
 */
import type { JSX } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { type ApiClient, describeError } from "./api_client.ts";
import type { DocumentPage, Source } from "./api_types.ts";
import { Icon } from "./Icons.tsx";
import { locationPages } from "./location.ts";
import { Modal } from "./Modal.tsx";
import { findPassage } from "./passage.ts";

/** The first page of a location (`3`, `1-3, 5`, `page 2`), else 1. */
function firstPage(location: string): number {
  return Math.max(1, locationPages(location)[0] ?? 1);
}

/** Whether the source's passage is (partly) on page `number`: a page its location names. */
function holdsPassage(source: Source, number: number): boolean {
  const pages = locationPages(source.location);
  return pages.length === 0 ? number === 1 : pages.includes(number);
}

/** Whether svc shows the document as drawn pages rather than as text. */
function isPdf(name: string): boolean {
  return /\.pdf$/i.test(name);
}

/** The document of a source, in a dialog over the page. */
export function DocumentView(props: {
  api: ApiClient;
  source: Source;
  /** The source's rank in its answer, from 1. */
  rank: number;
  onClose: () => void;
}): JSX.Element {
  const { source } = props;
  const pdf = isPdf(source.document.name);
  const [page, setPage] = useState(firstPage(source.location));
  const [count, setCount] = useState<number | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const go = (to: number) => setPage((now) => Math.min(Math.max(1, to), count ?? now));
  // A location past the document's end (a source of an older upload) opens at its last page.
  const counted = (pages: number) => {
    setCount(pages);
    setPage((now) => Math.max(1, Math.min(now, pages)));
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const step = { ArrowLeft: -1, PageUp: -1, ArrowRight: 1, PageDown: 1 }[event.key];
    if (step === undefined) return;
    event.preventDefault();
    go(page + step);
  };

  const label = pdf || (count ?? 0) > 1 ? `Page ${page}${count ? ` of ${count}` : ""}` : "";
  return (
    <Modal
      id="document-view"
      title={source.document.name}
      class="document-view"
      onClose={props.onClose}
    >
      <div class="document-view-body" onKeyDown={onKeyDown}>
        <div class="document-toolbar">
          <p class="document-source">
            Source {props.rank}
            {label && <span aria-hidden="true">·</span>}
            <span aria-live="polite">{label}</span>
          </p>
          <div class="document-steps">
            <button
              type="button"
              class="button ghost small"
              aria-label="Previous page"
              disabled={page <= 1}
              onClick={() => go(page - 1)}
            >
              <Icon name="back" />
            </button>
            <button
              type="button"
              class="button ghost small"
              aria-label="Next page"
              disabled={count === undefined || page >= count}
              onClick={() => go(page + 1)}
            >
              <Icon name="forward" />
            </button>
            <button type="button" class="button ghost small" onClick={props.onClose}>
              <Icon name="close" /> Close
            </button>
          </div>
        </div>
        {error
          ? (
            <p class="notice" role="alert">
              <Icon name="alert" /> The document cannot be shown: {error}
            </p>
          )
          : pdf
          ? (
            <PdfView
              {...props}
              page={page}
              onCount={counted}
              onError={setError}
            />
          )
          : <TextView {...props} page={page} onCount={counted} onError={setError} />}
        <p class="document-hint">
          <kbd>←</kbd> <kbd>→</kbd> step through the pages, <kbd>Esc</kbd> closes
        </p>
      </div>
    </Modal>
  );
}

interface ViewProps {
  api: ApiClient;
  source: Source;
  page: number;
  onCount: (count: number) => void;
  onError: (message: string) => void;
}

/** A PDF page drawn by pdf.js, which is loaded with its first use. */
function PdfView(props: ViewProps): JSX.Element {
  const canvas = useRef<HTMLDivElement>(null);
  const [pdf, setPdf] = useState<
    { module: typeof import("./pdf_page.ts"); document: import("./pdf_page.ts").PdfDocument }
  >();
  const [drawn, setDrawn] = useState<{ page: number; found: boolean } | undefined>();

  useEffect(() => {
    let open: import("./pdf_page.ts").PdfDocument | undefined;
    let gone = false;
    (async () => {
      try {
        const module = await import("./pdf_page.ts");
        open = await module.openPdf(props.api.documentContent(props.source.document.id));
        if (gone) return void open.close();
        props.onCount(open.pdf.numPages);
        setPdf({ module, document: open });
      } catch (error) {
        if (!gone) props.onError(describeError(error));
      }
    })();
    return () => {
      gone = true;
      open?.close();
    };
  }, [props.source.document.id]);

  useEffect(() => {
    const element = canvas.current;
    if (!pdf || !element) return;
    const number = Math.min(props.page, pdf.document.pdf.numPages);
    const passage = holdsPassage(props.source, number) ? props.source.content : "";
    let current = true;
    pdf.module.drawPage(pdf.document, number, element, {
      width: element.parentElement!.clientWidth - 2,
      passage,
    }).then((marks) => {
      if (!current) return;
      setDrawn({ page: number, found: marks.length > 0 });
      marks[0]?.scrollIntoView({ block: "center" });
    }, (error) => current && props.onError(describeError(error)));
    return () => {
      current = false;
    };
  }, [pdf, props.page]);

  const busy = !drawn || drawn.page !== props.page;
  return (
    <div class="document-pages" tabIndex={0} aria-label="Document page" aria-busy={busy}>
      {!pdf && (
        <p class="document-loading">
          <span class="spinner" aria-hidden="true" /> Opening the document…
        </p>
      )}
      <div class="pdf-page" ref={canvas} />
      {drawn && <PassageNote found={drawn.found} onPage={drawn.page} {...props} />}
    </div>
  );
}

/** The text svc read from a page, with the passage marked and scrolled to. */
function TextView(props: ViewProps): JSX.Element {
  const [pages, setPages] = useState<DocumentPage[] | undefined>(undefined);
  const mark = useRef<HTMLElement>(null);
  useEffect(() => {
    let gone = false;
    props.api.documentPages(props.source.document.id).then((read) => {
      if (gone) return;
      setPages(read);
      props.onCount(read.length);
    }, (error) => !gone && props.onError(describeError(error)));
    return () => {
      gone = true;
    };
  }, [props.source.document.id]);

  const index = pages && pageIndex(pages, props.page);
  const page = index === undefined ? undefined : pages![index];
  const atSource = page !== undefined && holdsPassage(props.source, page.number ?? 1);
  const span = page && atSource ? findPassage(page.text, props.source.content) : undefined;

  useLayoutEffect(() => {
    mark.current?.scrollIntoView({ block: "center" });
  }, [page, span?.start]);

  if (!pages) {
    return (
      <p class="document-loading">
        <span class="spinner" aria-hidden="true" /> Reading the document…
      </p>
    );
  }
  return (
    <div class="document-pages" tabIndex={0} aria-label="Document text">
      <pre class="document-text">
        {span
          ? (
            <>
              {page!.text.slice(0, span.start)}
              <mark class="passage-mark" ref={mark}>{page!.text.slice(span.start, span.end)}</mark>
              {page!.text.slice(span.end)}
            </>
          )
          : page?.text}
      </pre>
      {atSource && <PassageNote found={span !== undefined} onPage={props.page} {...props} />}
    </div>
  );
}

/** The index in `pages` of page `number`: by its number, else by its place. */
function pageIndex(pages: DocumentPage[], number: number): number | undefined {
  const numbered = pages.findIndex((page) => page.number === number);
  if (numbered >= 0) return numbered;
  return pages.length === 0 ? undefined : Math.min(number, pages.length) - 1;
}

/** Says where the passage is, or that it could not be found on its page. */
function PassageNote(props: ViewProps & { found: boolean; onPage: number }): JSX.Element | null {
  if (!holdsPassage(props.source, props.onPage)) return null;
  return (
    <p class={`passage-note${props.found ? "" : " missing"}`} role="status">
      {props.found
        ? "The passage the answer used is marked."
        : "The passage could not be found on this page; it is shown in the sources panel."}
    </p>
  );
}
