/**
 * The scan thread (`code_scan_thread.ts`): holds chats' vector codes laid
 * end to end, each in this thread's own scan memory, and ranks them for the
 * queries asked through the channel it was given, as `nearestCodes()` does.
 * @module
 */
import { parentPort } from "node:worker_threads";
import { nearestCodes, VectorCodes } from "./vector_codes.ts";
import { CONTROL, ScanChannel, type ScanRequest } from "./code_scan_thread.ts";

const held = new Map<number, VectorCodes>();
// Why codes that were given could not be held.
const refused = new Map<number, string>();
// The last codes whose message came (they are numbered in order), and a scan's
// wait for codes laid after those: a scan can come through the channel before
// the message of its codes.
let laid = 0;
let arrival = Promise.withResolvers<void>();
let channel: ScanChannel | undefined;

parentPort!.on("message", (request: ScanRequest) => {
  if ("lay" in request) {
    try {
      const { dimension, size, codes, factors } = request;
      const laid = {
        dimension,
        size,
        codes: new Int8Array(codes),
        factors: new Float32Array(factors),
      };
      held.set(request.lay, VectorCodes.fromLaid(laid));
    } catch (error) {
      refused.set(request.lay, error instanceof Error ? error.message : String(error));
    }
    laid = request.lay;
    arrival.resolve();
    arrival = Promise.withResolvers();
  } else if ("drop" in request) {
    held.get(request.drop)?.discard();
    held.delete(request.drop);
    refused.delete(request.drop);
  } else {
    const previous = channel;
    channel = new ScanChannel(request.channel);
    // A scan waiting on the channel before looks at this one.
    if (previous) Atomics.notify(previous.control, CONTROL.asked);
    else void serve();
  }
});

/** Answers each scan asked through the channel, the one it was last given. */
async function serve(): Promise<never> {
  let answered = 0;
  let current = channel!;
  for (;;) {
    if (current !== channel) [current, answered] = [channel!, 0];
    const asked = Atomics.load(current.control, CONTROL.asked);
    if (asked === answered) {
      const waited = Atomics.waitAsync(current.control, CONTROL.asked, asked);
      if (waited.async) await waited.value;
      continue;
    }
    answered = asked;
    const id = current.control[CONTROL.codes]!;
    while (id > laid) await arrival.promise;
    const codes = held.get(id);
    if (!codes) {
      current.failWith(`No codes ${id} to scan: ${refused.get(id) ?? "they were let go"}`);
      continue;
    }
    try {
      const dimension = current.control[CONTROL.dimension]!;
      const query = current.query.slice(0, dimension);
      const nearest = nearestCodes([codes], query, current.control[CONTROL.count]!);
      current.answerWith(nearest.map((hit) => hit.chunk));
    } catch (error) {
      current.failWith(error instanceof Error ? error.message : String(error));
    }
  }
}
