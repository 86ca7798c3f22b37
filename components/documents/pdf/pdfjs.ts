/**
 * pdfjs, loaded on first use, and the text items of a range of a PDF's pages read with it: the
 * part of reading a PDF that runs on the thread that reads, the calling one or a worker of
 * `split.ts`.
 *
 * pdfjs's modern build, not its legacy one: the legacy build adds polyfills for older runtimes,
 * which Deno is not (every newer built-in the modern build calls is Deno's own), and they cost
 * memory on each thread that reads and time to load.
 * @module
 */
import type { TextItem, TextMarkedContent } from "pdfjs-dist/types/src/display/api.d.ts";
import type { PdfTextItem } from "./layout.ts";
import { formatCount, MAX_PDF_PAGES, PdfLimitError } from "./limits.ts";

type Pdfjs = typeof import("pdfjs-dist/build/pdf.mjs");

/** The part of pdfjs's worker code that svc calls: it serves one document over a port. */
interface WorkerCode {
  WorkerMessageHandler: { initializeFromPort(port: ThreadPort): void };
}

let pdfjs: Promise<Pdfjs> | undefined;
let workerCode: Promise<WorkerCode> | undefined;

/** What the modern build says once as it loads wherever Node's globals are, as in Deno's npm code. */
const LEGACY_ADVICE = "Warning: Please use the `legacy` build in Node.js environments.";

/**
 * Loads pdfjs on first use: loading it is work that start-up should not pay for. A literal
 * specifier, so that `deno compile` still includes it. The one warning it writes as it loads,
 * advice for Node (see the module's doc), is kept off the console.
 */
export function loadPdfjs(): Promise<Pdfjs> {
  if (!pdfjs) {
    globalThis.addEventListener("unhandledrejection", ignorePdfjsLeak);
    const warn = console.warn;
    console.warn = (...data: unknown[]) => {
      if (data.length !== 1 || data[0] !== LEGACY_ADVICE) warn(...data);
    };
    pdfjs = import("pdfjs-dist/build/pdf.mjs").finally(() => console.warn = warn);
  }
  return pdfjs;
}

/** Loads pdfjs's worker code on first use, which parses the documents on the reading thread. */
function loadWorkerCode(): Promise<WorkerCode> {
  workerCode ??= import("pdfjs-dist/build/pdf.worker.mjs") as Promise<unknown> as Promise<
    WorkerCode
  >;
  return workerCode;
}

/** One end of a channel between pdfjs's two halves on one thread. */
interface ThreadPort {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  removeEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
}

/**
 * Two ends of a channel on one thread that hand each message over later in the same turn of the
 * event loop, as pdfjs's own channel for a thread without workers does, but without copying it
 * deeply: pdfjs sends the text of every page and every font across, and a deep copy of each is
 * work that reading on one thread does not need. The message and the objects it holds are
 * copied one level down, since pdfjs gives a stream's chunk new fields once it is sent (a page's
 * text items start again in a new array) but never changes what the fields held.
 */
function threadPorts(): [ThreadPort, ThreadPort] {
  const make = (): ThreadPort & {
    other?: ThreadPort;
    listeners: Set<(event: { data: unknown }) => void>;
  } => {
    const port = {
      other: undefined as ThreadPort | undefined,
      listeners: new Set<(event: { data: unknown }) => void>(),
      postMessage(message: unknown) {
        const target = port.other as unknown as typeof port;
        const data = shallowCopy(message, 2);
        queueMicrotask(() => {
          for (const listener of target.listeners) listener({ data });
        });
      },
      addEventListener(_type: "message", listener: (event: { data: unknown }) => void) {
        port.listeners.add(listener);
      },
      removeEventListener(_type: "message", listener: (event: { data: unknown }) => void) {
        port.listeners.delete(listener);
      },
    };
    return port;
  };
  const [a, b] = [make(), make()];
  a.other = b;
  b.other = a;
  return [a, b];
}

/** The exceptions of pdfjs's worker code: its `BaseException` subclasses. */
const PDFJS_EXCEPTIONS = new Set([
  "PasswordException",
  "UnknownErrorException",
  "InvalidPDFException",
  "ResponseException",
  "FormatError",
  "AbortException",
  "MissingDataException",
  "ParserEOFException",
  "XRefEntryException",
  "XRefParseException",
  "JpegError",
  "DNLMarkerError",
  "EOIMarkerError",
  "Jbig2Error",
  "JpxError",
]);

/**
 * Keeps a rejection that pdfjs leaves unhandled from ending the process. pdfjs 6.5 fetches the
 * kids of the page tree ahead (`pageDictCache` in `Catalog.getPageDict`) and never awaits those
 * it does not need, so a damaged kid rejects with nobody listening, after the read that caused it
 * ended as it should. Only pdfjs's own exceptions are let go; any other stays fatal.
 */
function ignorePdfjsLeak(event: PromiseRejectionEvent): void {
  const reason = event.reason;
  if (
    reason instanceof Error && PDFJS_EXCEPTIONS.has(reason.name) &&
    /pdf\.js|pdfjs|pdf\.worker/.test(String(reason.stack))
  ) {
    event.preventDefault();
  }
}

/** A plain object copied `depth` levels down; anything else as it is. */
function shallowCopy(value: unknown, depth: number): unknown {
  if (depth === 0 || typeof value !== "object" || value === null) return value;
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) copy[key] = shallowCopy(field, depth - 1);
  return copy;
}

/** A PDF opened with pdfjs on the calling thread, read one page at a time. */
export interface OpenPdf extends AsyncDisposable {
  /** How many pages the document has. */
  readonly pageCount: number;
  /**
   * The text items of a page, numbered from 1, one page at a time (a call waits for the one
   * before). Throws pdfjs's errors.
   */
  page(number: number): Promise<PdfTextItem[]>;
  /** Lets go of the document and what pdfjs keeps of it; the same as disposing of it. */
  close(): Promise<void>;
}

/**
 * How many pages are read before the document is opened anew: pdfjs keeps every page it read
 * until the document is closed, even after the page's cleanup, so a long document's memory would
 * grow with its pages. A document of fewer pages is opened once.
 */
export const REOPEN_PAGES = 512;

/**
 * Opens a PDF with pdfjs on the calling thread, to read its pages one by one. Throws pdfjs's
 * errors, an error of its own when pdfjs counts no whole number of pages, and a `PdfLimitError`
 * when it counts more than `MAX_PDF_PAGES`; once opened, it holds what pdfjs parsed (fonts, the
 * cross-reference table, the pages read) until closed, or until `reopenEvery` pages were read,
 * when it opens the document anew.
 */
export async function openPdfjs(
  bytes: Uint8Array,
  { reopenEvery = REOPEN_PAGES }: { reopenEvery?: number } = {},
): Promise<OpenPdf> {
  let current = await openDocument(bytes);
  let read = 0;
  const close = () => current.close();
  return {
    pageCount: current.pageCount,
    async page(number) {
      if (read > 0 && read % reopenEvery === 0) {
        await current.close();
        current = await openDocument(bytes);
      }
      read++;
      return await current.page(number);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The document opened once, as {@linkcode openPdfjs} gives it. */
async function openDocument(bytes: Uint8Array): Promise<OpenPdf> {
  const [{ getDocument, PDFWorker }, { WorkerMessageHandler }] = await Promise.all([
    loadPdfjs(),
    loadWorkerCode(),
  ]);
  const [main, parser] = threadPorts();
  WorkerMessageHandler.initializeFromPort(parser);
  const worker = new PDFWorker({ port: main as unknown as null, verbosity: 0 });
  // A copy, because pdfjs may keep the buffer it is given; verbosity 0 keeps its warnings about
  // fonts and recovered errors off the console.
  const loadingTask = getDocument({ data: bytes.slice(), verbosity: 0, worker });
  let closing: Promise<void> | undefined;
  const close = () =>
    closing ??= loadingTask.destroy().finally(() => {
      worker.destroy();
    });
  try {
    const document = await loadingTask.promise;
    // A damaged page tree can make pdfjs count -1 pages.
    if (!Number.isSafeInteger(document.numPages) || document.numPages < 0) {
      throw new Error(`pdfjs counted ${document.numPages} pages`);
    }
    if (document.numPages > MAX_PDF_PAGES) {
      throw new PdfLimitError(`it has more than ${formatCount(MAX_PDF_PAGES)} pages`);
    }
    return {
      pageCount: document.numPages,
      async page(number) {
        const page = await document.getPage(number);
        const content = await page.getTextContent();
        // What pdfjs keeps of the page (its operator lists, its resources) is not needed again.
        page.cleanup();
        return content.items.filter(isText);
      },
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

function isText(item: TextItem | TextMarkedContent): item is TextItem {
  return "str" in item;
}
