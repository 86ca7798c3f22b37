/**
 * The scan thread (`_code_scan_thread.ts`): holds chats' vector codes laid
 * end to end, each in this thread's own scan memory, and ranks them for a
 * query as `nearestCodes()` does.
 * @module
 */
import { parentPort } from "node:worker_threads";
import { nearestCodes, VectorCodes } from "./_vector_codes.ts";
import type { ScanReply, ScanRequest } from "./_code_scan_thread.ts";

const held = new Map<number, VectorCodes>();
// Why codes that were given could not be held.
const refused = new Map<number, string>();

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
  } else if ("drop" in request) {
    held.get(request.drop)?.discard();
    held.delete(request.drop);
    refused.delete(request.drop);
  } else {
    const codes = held.get(request.codes);
    if (!codes) {
      const why = refused.get(request.codes) ?? "they were let go";
      reply({ scan: request.scan, error: `No codes ${request.codes} to scan: ${why}` });
      return;
    }
    const nearest = nearestCodes([codes], new Float32Array(request.query), request.count);
    const positions = Int32Array.from(nearest, (hit) => hit.chunk).buffer;
    reply({ scan: request.scan, positions }, [positions]);
  }
});

function reply(message: ScanReply, transfer: ArrayBuffer[] = []): void {
  parentPort!.postMessage(message, transfer);
}
