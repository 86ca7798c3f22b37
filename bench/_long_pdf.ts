/**
 * The long PDF of the benchmarks: ten copies of the labelled set's TeX manual `clsguide.pdf`
 * (330 pages), joined by poppler's `pdfunite` into a temporary folder removed when the process
 * ends.
 * @module
 */
import { svcTaskArgs } from "../tests/_process.ts";

/** How many pages the long PDF has. */
export const LONG_PDF_PAGES = 330;

const MANUAL = new URL("../tests/fixtures/labelled/clsguide.pdf", import.meta.url).pathname;
const REPOSITORY = new URL("../", import.meta.url).pathname;

/** Options of {@linkcode readPdfArgs}. */
export interface ReadPdfArgsOptions {
  /**
   * How many workers `readPdfPages()` shares the pages with.
   * @default {0}
   */
  workers?: number;
  /**
   * `svc` reads with `readPdfPages()`; `pdfjs` reads every page with pdfjs alone.
   * @default {"svc"}
   */
  reader?: "svc" | "pdfjs";
}

/**
 * The arguments of `deno` that read a PDF in a process of its own (`_read_pdf.ts`), which prints
 * the page count and its peak memory as JSON: started as `deno task svc` starts svc, with its V8
 * flags, as a reader thread reads in svc.
 */
export function readPdfArgs(path: string, options: ReadPdfArgsOptions = {}): string[] {
  const { workers = 0, reader = "svc" } = options;
  return [...svcTaskArgs(), `${REPOSITORY}bench/_read_pdf.ts`, path, String(workers), reader];
}

/** Makes the long PDF and returns its path. */
export async function longPdf(): Promise<string> {
  const folder = await Deno.makeTempDir({ prefix: "svc-long-pdf-" });
  globalThis.addEventListener("unload", () => Deno.removeSync(folder, { recursive: true }));
  const path = `${folder}/clsguide-x10.pdf`;
  const joined = await new Deno.Command("pdfunite", {
    args: [...Array(10).fill(MANUAL), path],
    stdout: "null",
    stderr: "piped",
  }).output().catch((error: Error) => ({ success: false, stderr: error.message }));
  if (!joined.success) throw new Error(`pdfunite (poppler-utils) failed: ${joined.stderr}`);
  return path;
}
