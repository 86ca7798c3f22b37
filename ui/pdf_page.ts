/**
 * A PDF page drawn by pdf.js, with its text layer over it, in which a
 * source's passage is marked. pdf.js is large, so this module is loaded only
 * when a PDF is opened: the build makes it a chunk of its own, and pdf.js's
 * worker a file of its own next to it, which the build names in
 * `PDF_WORKER_FILE`.
 * @module
 */
import {
  getDocument,
  GlobalWorkerOptions,
  type PDFDocumentProxy,
  type PDFPageProxy,
  TextLayer,
} from "pdfjs-dist";
import { findPassage } from "./passage.ts";
import { type PlacedText, runningHeads } from "./running_heads.ts";

/** The file name of pdf.js's worker, next to this chunk; set by the build. */
declare const PDF_WORKER_FILE: string;

GlobalWorkerOptions.workerSrc = new URL(PDF_WORKER_FILE, import.meta.url).href;

/** The most pixels a page is drawn with. */
const MAX_CANVAS_PIXELS = 16_000_000;

/** An open PDF, and how to close it (which ends its work in the worker). */
export interface PdfDocument {
  pdf: PDFDocumentProxy;
  close(): Promise<void>;
}

/**
 * Opens the PDF at `url` in pdf.js's worker, which reads only the ranges of
 * bytes it needs for the pages it draws.
 *
 * @throws {Error} in words when the API refuses the file or cannot be reached
 */
export async function openPdf(
  file: { url: string; headers: Record<string, string> },
): Promise<PdfDocument> {
  const task = getDocument({
    url: file.url,
    httpHeaders: file.headers,
    // Ranges rather than the whole file streamed alongside them, and only those a page needs.
    disableStream: true,
    disableAutoFetch: true,
  });
  try {
    return { pdf: await task.promise, close: () => task.destroy() };
  } catch (error) {
    await task.destroy();
    throw new Error(refusal(error));
  }
}

/** Why pdf.js could not read the file, in the words the rest of the page uses. */
function refusal(error: unknown): string {
  const status = (error as { status?: unknown }).status;
  if (status === 404) return "it is not there: it was deleted, or its file was never uploaded";
  if (status === 401) return "the session ended: log in again";
  if (typeof status === "number" && status > 0) return `the API answered ${status}`;
  if (status === 0) return "the svc API cannot be reached";
  return (error as Error).message ?? String(error);
}

/**
 * Draws page `number` into `container`, as wide as `width` pixels at most,
 * with its text layer, and marks `passage` in it; returns the marks, first
 * first (none when the passage is not on the page).
 */
export async function drawPage(
  { pdf }: PdfDocument,
  number: number,
  container: HTMLElement,
  options: { width: number; passage: string },
): Promise<HTMLElement[]> {
  const page = await pdf.getPage(number);
  const scale = Math.min(8, Math.max(0.25, options.width / page.getViewport({ scale: 1 }).width));
  const viewport = page.getViewport({ scale });
  // A page zoomed in on a sharp screen is drawn with fewer pixels than the screen has rather
  // than with more than a canvas may hold.
  const ratio = Math.min(
    globalThis.devicePixelRatio || 1,
    Math.sqrt(MAX_CANVAS_PIXELS / (viewport.width * viewport.height)),
  );
  const canvas = document.createElement("canvas");
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  canvas.style.width = `${Math.floor(viewport.width)}px`;
  canvas.style.height = `${Math.floor(viewport.height)}px`;
  await page.render({
    canvas,
    viewport,
    transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0],
  }).promise;

  const layer = document.createElement("div");
  layer.className = "textLayer";
  const content = await page.getTextContent();
  const textLayer = new TextLayer({ textContentSource: content, container: layer, viewport });
  await textLayer.render();
  container.style.setProperty("--scale-factor", String(scale));
  container.style.setProperty("--total-scale-factor", String(scale));
  container.style.width = canvas.style.width;
  container.style.height = canvas.style.height;
  container.replaceChildren(canvas, layer);
  // A neighbouring page tells the running heads and feet, which are never marked.
  const neighbour = number < pdf.numPages ? number + 1 : number - 1;
  let running = new Set<number>();
  if (neighbour >= 1) {
    const other = await pdf.getPage(neighbour);
    const lines = placed(other, (await other.getTextContent()).items);
    running = runningHeads(placed(page, content.items), lines);
  }
  return markPassage(textLayer.textDivs, textLayer.textContentItemsStr, options.passage, running);
}

/** The text items of a page (as the text layer has them, one element each) and where they stand. */
function placed(page: PDFPageProxy, items: readonly object[]): PlacedText[] {
  const [, bottom, , top] = page.view as [number, number, number, number];
  const height = top - bottom || 1;
  return items.flatMap((item) => {
    if (!("str" in item)) return [];
    const { str, transform } = item as { str: string; transform: number[] };
    return [{ text: str, y: (top - (transform[5] ?? 0)) / height }];
  });
}

/**
 * Marks the passage in the text layer: each text element's part of it is
 * wrapped in a `<mark>`, but for the elements in `running`. The elements'
 * texts are joined with line breaks, so that a word cut by a hyphen at a line
 * end reads as one.
 */
function markPassage(
  elements: HTMLElement[],
  texts: string[],
  passage: string,
  running: ReadonlySet<number>,
): HTMLElement[] {
  const offsets: number[] = [];
  let text = "";
  texts.forEach((part, index) => {
    if (index > 0) text += "\n";
    offsets.push(text.length);
    // A running head or foot is left out: the passage is found, and marked, around it.
    text += running.has(index) ? " ".repeat(part.length) : part;
  });
  const span = findPassage(text, passage);
  if (!span) return [];
  const marks: HTMLElement[] = [];
  elements.forEach((element, index) => {
    const start = Math.max(span.start - offsets[index]!, 0);
    const end = Math.min(span.end - offsets[index]!, texts[index]!.length);
    const node = element.firstChild;
    if (running.has(index)) return;
    if (start >= end || !(node instanceof Text) || end > node.length) return;
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, end);
    const mark = document.createElement("mark");
    mark.className = "passage-mark";
    range.surroundContents(mark);
    marks.push(mark);
  });
  return marks;
}
