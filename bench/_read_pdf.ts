/**
 * One measured read for `bench/pdf_bench.ts`: reads the PDF at `Deno.args[0]` and prints the page
 * count and the peak memory of the process, its workers included (they are its threads), as JSON.
 * `Deno.args[2]` names the reader: `svc`, svc's `readPdfPages` on `Deno.args[1]` workers (the
 * direct reader, pdfjs where it does not read); or `pdfjs`, every page read by pdfjs alone on the
 * calling thread and laid out as svc lays out its pages, what svc would do had it bought the
 * reading whole.
 * @module
 */
import { readPdfPages } from "../components/documents/pdf/mod.ts";
import { PageLayout } from "../components/documents/pdf/layout.ts";
import { openPdfjs } from "../components/documents/pdf/pdfjs.ts";

/** The texts of a PDF's pages read by pdfjs alone, laid out: how many. */
async function pdfjsPages(bytes: Uint8Array): Promise<number> {
  await using pdf = await openPdfjs(bytes);
  const layout = new PageLayout(pdf.pageCount);
  let pages = 0;
  for (let number = 1; number <= pdf.pageCount; number++) {
    pages += layout.push(await pdf.page(number)).length;
  }
  return pages + layout.end().length;
}

const [path = "", workers = "0", reader = "svc"] = Deno.args;
const bytes = await Deno.readFile(path);
const pages = reader === "pdfjs"
  ? await pdfjsPages(bytes)
  : (await readPdfPages(bytes, path, { workers: Number(workers) })).length;
const status = await Deno.readTextFile("/proc/self/status");
const peakKiB = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
console.log(JSON.stringify({ pages, peakBytes: peakKiB * 1024 }));
