/**
 * A source's document, opened at the source's first page with the passage
 * marked, or a document opened from its pill or the document list: a PDF
 * page as pdf.js draws it (loaded on demand), any other format as itself
 * (`DocumentFormats.tsx`). The arrow keys and Page Up/Down step through the
 * pages or slides; Escape closes.
 * @module
 */
import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { type ApiClient, describeError } from "./api_client.ts";
import type { Source } from "./api_types.ts";
import { FormatView } from "./DocumentFormats.tsx";
import { Icon } from "./Icons.tsx";
import { locationPages } from "./location.ts";
import { Modal } from "./Modal.tsx";
import { nextZoom, ZOOMS } from "./zoom.ts";

/** The first page of a location (`3`, `1-3, 5`, `page 2`), else 1. */
function firstPage(location: string): number {
  return Math.max(1, locationPages(location)[0] ?? 1);
}

/** Whether the source's passage is (partly) on page `number`: a page its location names. */
function holdsPassage(source: Source, number: number): boolean {
  if (!source.content.trim()) return false;
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
  /** The source, or `wholeDocument()`'s for a document opened as itself. */
  source: Source;
  /** The source's rank in its answer, from 1; none for a document opened as itself. */
  rank?: number;
  onClose: () => void;
}): JSX.Element {
  const { source } = props;
  const pdf = isPdf(source.document.name);
  const [marked, setMarked] = useState<{ page: number; found: boolean } | undefined>();
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

  const unit = /\.pptx$/i.test(source.document.name) ? "Slide" : "Page";
  const label = pdf || (count ?? 0) > 1 ? `${unit} ${page}${count ? ` of ${count}` : ""}` : "";
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
            {props.rank !== undefined && <span class="label-wide">Source {props.rank}</span>}
            {props.rank !== undefined && label && (
              <span class="label-wide" aria-hidden="true">·</span>
            )}
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
          : (
            <>
              <FormatView
                api={props.api}
                documentId={source.document.id}
                passage={holdsPassage(source, page) ? source.content : ""}
                page={page}
                onCount={counted}
                onError={setError}
                onMarked={(found) => setMarked({ page, found })}
              />
              {marked?.page === page && holdsPassage(source, page) && (
                <PassageNote source={source} found={marked.found} onPage={page} />
              )}
            </>
          )}
        <p class="document-hint">
          <kbd>←</kbd> <kbd>→</kbd> step through the {unit === "Slide" ? "slides" : "pages"},{" "}
          {pdf && (
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
      {drawn && <PassageNote source={props.source} found={drawn.found} onPage={drawn.page} />}
    </div>
  );
}

/** Says where the passage is, or that it could not be found on its page. */
function PassageNote(
  props: { source: Source; found: boolean; onPage: number },
): JSX.Element | null {
  if (!holdsPassage(props.source, props.onPage)) return null;
  return (
    <p class={`passage-note${props.found ? "" : " missing"}`} role="status">
      {props.found
        ? "The passage the answer used is marked."
        : "The passage could not be found on this page; it is shown in the sources panel."}
    </p>
  );
}
