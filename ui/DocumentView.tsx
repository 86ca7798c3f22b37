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
import { nextZoom, ZOOMS } from "./zoom.ts";

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
  const [zoom, setZoom] = useState(1);
  const go = (to: number) => setPage((now) => Math.min(Math.max(1, to), count ?? now));
  // A location past the document's end (a source of an older upload) opens at its last page.
  const counted = (pages: number) => {
    setCount(pages);
    setPage((now) => Math.max(1, Math.min(now, pages)));
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (pdf && ["+", "=", "-", "0"].includes(event.key)) {
      event.preventDefault();
      setZoom((now) => event.key === "0" ? 1 : nextZoom(now, event.key === "-" ? -1 : 1));
      return;
    }
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
            <span class="label-wide">Source {props.rank}</span>
            {label && <span class="label-wide" aria-hidden="true">·</span>}
            <span aria-live="polite">{label}</span>
          </p>
          <div class="document-steps">
            {pdf && (
              <div class="document-zoom" role="group" aria-label="Zoom">
                <button
                  type="button"
                  class="button ghost small icon-only"
                  aria-label="Zoom out"
                  // Not disabled: a disabled button would drop the focus out of the dialog.
                  aria-disabled={zoom <= ZOOMS[0]!}
                  onClick={() => setZoom(nextZoom(zoom, -1))}
                >
                  <Icon name="zoomOut" />
                </button>
                <button
                  type="button"
                  class="button ghost small zoom-level"
                  aria-label={`${Math.round(zoom * 100)}%: fit the width`}
                  onClick={() => setZoom(1)}
                >
                  {Math.round(zoom * 100)}%
                </button>
                <button
                  type="button"
                  class="button ghost small icon-only"
                  aria-label="Zoom in"
                  aria-disabled={zoom >= ZOOMS.at(-1)!}
                  onClick={() => setZoom(nextZoom(zoom, 1))}
                >
                  <Icon name="zoomIn" />
                </button>
              </div>
            )}
            <button
              type="button"
              class="button ghost small"
              aria-label="Previous page"
              // Not disabled, which would drop the focus out of the dialog at the first page.
              aria-disabled={page <= 1}
              onClick={() => go(page - 1)}
            >
              <Icon name="back" />
            </button>
            <button
              type="button"
              class="button ghost small"
              aria-label="Next page"
              aria-disabled={count === undefined || page >= count}
              onClick={() => go(page + 1)}
            >
              <Icon name="forward" />
            </button>
            <button
              type="button"
              class="button ghost small"
              aria-label="Close"
              onClick={props.onClose}
            >
              <Icon name="close" /> <span class="label-wide">Close</span>
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
              zoom={zoom}
              onZoom={setZoom}
              onCount={counted}
              onError={setError}
            />
          )
          : <TextView {...props} page={page} onCount={counted} onError={setError} />}
        <p class="document-hint">
          <kbd>←</kbd> <kbd>→</kbd> step through the pages, {pdf && (
            <>
              <kbd>+</kbd> <kbd>−</kbd> zoom, <kbd>0</kbd> fits the width,{" "}
            </>
          )}
          <kbd>Esc</kbd> closes
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
function PdfView(
  props: ViewProps & { zoom: number; onZoom: (change: (zoom: number) => number) => void },
): JSX.Element {
  const canvas = useRef<HTMLDivElement>(null);
  const pinch = useRef<{ distance: number; zoom: number } | undefined>(undefined);
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
    const pages = element.parentElement!;
    const style = getComputedStyle(pages);
    const inside = pages.clientWidth - parseFloat(style.paddingLeft) -
      parseFloat(style.paddingRight);
    pdf.module.drawPage(pdf.document, number, element, {
      width: Math.max(100, inside - 2) * props.zoom,
      passage,
    }).then((marks) => {
      if (!current) return;
      setDrawn({ page: number, found: marks.length > 0 });
      // The passage in view; a page without it from its top, not where the last one was left.
      if (marks[0]) marks[0].scrollIntoView({ block: "center", inline: "nearest" });
      else pages.scrollTo({ top: 0, left: 0 });
    }, (error) => current && props.onError(describeError(error)));
    return () => {
      current = false;
    };
  }, [pdf, props.page, props.zoom]);

  const busy = !drawn || drawn.page !== props.page;
  const distance = (touches: TouchList) =>
    Math.hypot(
      touches[0]!.clientX - touches[1]!.clientX,
      touches[0]!.clientY - touches[1]!.clientY,
    );
  return (
    <div
      class="document-pages"
      tabIndex={0}
      aria-label="Document page"
      aria-busy={busy}
      // A pinch, with two fingers or on a touchpad (a wheel with Ctrl), zooms the page, not the UI.
      onWheel={(event) => {
        if (!event.ctrlKey) return;
        event.preventDefault();
        props.onZoom((zoom) => nextZoom(zoom, event.deltaY < 0 ? 1 : -1));
      }}
      onTouchStart={(event) => {
        if (event.touches.length === 2) {
          pinch.current = { distance: distance(event.touches), zoom: props.zoom };
        }
      }}
      onTouchMove={(event) => {
        if (pinch.current && event.touches.length === 2) event.preventDefault();
      }}
      onTouchEnd={(event) => {
        const start = pinch.current;
        if (!start || event.touches.length + event.changedTouches.length < 2) return;
        pinch.current = undefined;
        const touches = [...event.touches, ...event.changedTouches];
        const now = Math.hypot(
          touches[0]!.clientX - touches[1]!.clientX,
          touches[0]!.clientY - touches[1]!.clientY,
        );
        const wanted = start.zoom * now / start.distance;
        const nearest = ZOOMS.reduce((best, zoom) =>
          Math.abs(zoom - wanted) < Math.abs(best - wanted) ? zoom : best
        );
        props.onZoom(() => nearest);
      }}
    >
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
  const box = useRef<HTMLDivElement>(null);
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

  // The passage in view; a page without it from its top, not where the last one was left.
  useLayoutEffect(() => {
    if (mark.current) mark.current.scrollIntoView({ block: "center" });
    else box.current?.scrollTo({ top: 0 });
  }, [page, span?.start]);

  if (!pages) {
    return (
      <p class="document-loading">
        <span class="spinner" aria-hidden="true" /> Reading the document…
      </p>
    );
  }
  return (
    <div class="document-pages" ref={box} tabIndex={0} aria-label="Document text">
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
