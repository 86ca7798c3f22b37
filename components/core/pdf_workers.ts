/**
 * How many workers read a PDF beside svc's thread: a setting of its own, so
 * that the server checks it at start without loading the readers.
 * @module
 */
import { envNumber } from "./env_number.ts";

/**
 * How many workers read a PDF beside the calling thread when svc reads one: `SVC_PDF_WORKERS`,
 * none unless it is set, and never more than the machine's cores. A worker loads pdfjs, opens the
 * document and parses its fonts again, and on 2 shared cores the pages it takes cost more
 * processor time than they save (`bench/pdf_bench.ts` measured 1.5 times the processor time, 1.3
 * times the wall time and 90 MB more than the calling thread alone); where cores are idle, a
 * worker or more may read a long PDF sooner.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pdfWorkers } from "./pdf_workers.ts";
 * assert.equal(pdfWorkers({}), 0);
 * assert.equal(pdfWorkers({ SVC_PDF_WORKERS: "1" }), 1);
 * ```
 *
 * @throws {SvcError} naming the variable when it is set to anything but a positive whole number
 */
export function pdfWorkers(env?: Readonly<Record<string, string | undefined>>): number {
  const workers = envNumber("SVC_PDF_WORKERS", { fallback: 0, env });
  return Math.min(workers, navigator.hardwareConcurrency);
}
