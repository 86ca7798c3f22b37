/**
 * One measured read for `bench/pdf_bench.ts`: reads the PDF at `Deno.args[0]` with
 * `readPdfPages`, on `Deno.args[1]` workers, and prints the page count and the peak memory of
 * the process, its workers included (they are its threads), as JSON.
 * @module
 */
import { readPdfPages } from "../components/documents/pdf/mod.ts";

const [path = "", workers = "0"] = Deno.args;
const pages = await readPdfPages(await Deno.readFile(path), path, { workers: Number(workers) });
const status = await Deno.readTextFile("/proc/self/status");
const peakKiB = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
console.log(JSON.stringify({ pages: pages.length, peakBytes: peakKiB * 1024 }));
