/**
 * A reader thread of `reader_pool.ts`: parses (or renders the view of) the documents it is sent,
 * one at a time, and answers each with its pages (or view) or its error. It runs with a capped heap; it tells when it passed the cap
 * (see {@linkcode watchHeap}).
 * @module
 */
import v8 from "node:v8";
import { parentPort } from "node:worker_threads";
import { SvcError } from "../core/errors.ts";
import { lowerThreadPriority } from "../core/thread_priority.ts";
import { parsePages } from "./parse.ts";
import { renderView } from "./views.ts";
import type { ReadReply, ReadRequest } from "./reader_pool.ts";

const port = parentPort!;
const reply = (message: ReadReply) => port.postMessage(message);

/** How often the heap's limit is looked at. */
const WATCH_MS = 50;

/**
 * Tells the pool once the heap passed its cap. Deno ends a thread past its cap with an error the
 * pool hears only when the allocation that passed it ran in a task of its own; in a promise's
 * continuation, where nearly all of a reading runs, V8 stops that work and raises the heap's limit
 * to let the thread go on, and the thread then waits, silent, for its next message. The raised
 * limit is the one sign left of it.
 */
function watchHeap(): void {
  const limit = v8.getHeapStatistics().heap_size_limit;
  const watch = setInterval(() => {
    if (v8.getHeapStatistics().heap_size_limit <= limit) return;
    clearInterval(watch);
    reply({ memory: true });
  }, WATCH_MS);
}

lowerThreadPriority();
watchHeap();

port.on("message", async ({ id, buffer, content, task }: ReadRequest) => {
  try {
    const bytes = new Uint8Array(buffer);
    if (task === "view") reply({ id, view: await renderView(bytes, content) });
    else reply({ id, pages: await parsePages(bytes, content) });
  } catch (error) {
    const status = error instanceof SvcError ? error.status : 500;
    const message = error instanceof Error ? error.message : String(error);
    reply({ id, error: { message, status } });
  }
});
