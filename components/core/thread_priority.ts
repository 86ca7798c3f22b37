/**
 * The CPU priority of svc's bulk threads: those that parse documents, index them and hash
 * passwords. Each can keep a core busy for seconds, and the thread that answers every request
 * needs a moment of a core for each; at the same priority, on a machine whose cores are all busy,
 * a request waits its turn behind them. Below it, the one thread that answers everyone comes
 * first, and the bulk work takes what is left. A thread that a bulk thread starts (a PDF's page
 * workers, started by a reader thread) runs at its priority already.
 * @module
 */
import { getPriority, setPriority } from "node:os";

/**
 * How far below the thread that started it a bulk thread runs, in nice values: well below, yet
 * not idle (19), so that it still moves on a machine that is busy all the time.
 */
export const BULK_NICE_STEP = 10;

/**
 * Lowers the CPU priority of the calling thread by {@linkcode BULK_NICE_STEP} from the one it
 * started with (its creator's), at most to the lowest; the first thing a bulk thread does. On
 * Linux a nice value belongs to a thread, so the rest of the process keeps its own. Elsewhere it
 * belongs to the whole process, and where svc may not set it (without the `sys` permission) the
 * thread keeps its priority: in both cases nothing is changed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { getPriority } from "node:os";
 * import { lowerThreadPriority } from "./thread_priority.ts";
 * const worker = new Worker(
 *   `data:text/javascript,${encodeURIComponent(`
 *     import { getPriority } from "node:os";
 *     import { lowerThreadPriority } from "${import.meta.resolve("./thread_priority.ts")}";
 *     lowerThreadPriority();
 *     postMessage(getPriority());
 *   `)}`,
 *   { type: "module" },
 * );
 * const nice = await new Promise((resolve) => worker.onmessage = (event) => resolve(event.data));
 * worker.terminate();
 * const own = getPriority();
 * assert.equal(nice, Deno.build.os === "linux" ? Math.min(19, own + 10) : own);
 * ```
 */
export function lowerThreadPriority(): void {
  if (Deno.build.os !== "linux") return;
  for (const kind of ["getPriority", "setPriority"] as const) {
    if (Deno.permissions.querySync({ name: "sys", kind }).state !== "granted") return;
  }
  const own = getPriority();
  const nice = Math.min(19, own + BULK_NICE_STEP);
  if (nice > own) setPriority(nice);
}
