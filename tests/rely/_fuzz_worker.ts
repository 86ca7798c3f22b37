/// <reference lib="deno.worker" />
/**
 * Runs one fuzz case at a time, off the runner's thread, so that the runner can terminate a case
 * that hangs. A case goes through `Document.extractPages`, the same path as an upload's.
 * @module
 */
import { Document } from "../../components/mod.ts";
import { SvcError } from "../../components/core/errors.ts";

/** A document whose bytes are in memory. */
class BytesDocument extends Document {
  readonly #bytes: Uint8Array;

  constructor(name: string, bytes: Uint8Array) {
    super({ name });
    this.#bytes = bytes;
  }

  override isReadable(): Promise<boolean> {
    return Promise.resolve(true);
  }

  override read(): Promise<Uint8Array> {
    return Promise.resolve(this.#bytes);
  }
}

/** What the worker answers for a case. */
export type WorkerReply =
  | { kind: "pages"; id: number; pages: number; chars: number }
  | { kind: "refused"; id: number; status: number; message: string }
  | { kind: "error"; id: number; error: string };

/** What the worker says a turn after it answered a case, if that turn did not end it. */
export interface WorkerSettled {
  kind: "settled";
  id: number;
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}\n${error.stack ?? ""}`;
  return String(error);
}

const reply = (message: WorkerReply | WorkerSettled) => self.postMessage(message);

// No "unhandledrejection" listener here: a rejection nobody handles ends the worker as it would
// end the server, and the runner counts that as a crash.
self.onmessage = async (event: MessageEvent<{ id: number; name: string; bytes: Uint8Array }>) => {
  const { id, name, bytes } = event.data;
  try {
    const pages = await new BytesDocument(name, bytes).extractPages();
    const wellFormed = Array.isArray(pages) &&
      pages.every((page) =>
        typeof page.text === "string" &&
        (page.number === null || (Number.isInteger(page.number) && page.number >= 1))
      );
    if (!wellFormed) throw new TypeError("extractPages() returned something that is not pages");
    const chars = pages.reduce((sum, page) => sum + page.text.length, 0);
    reply({ kind: "pages", id, pages: pages.length, chars });
  } catch (error) {
    if (error instanceof SvcError) {
      reply({ kind: "refused", id, status: error.status, message: error.message });
    } else reply({ kind: "error", id, error: describe(error) });
  }
  // A rejection the case left unhandled ends the worker at the end of the turn it was made in,
  // so before this turn comes: the runner waits for this rather than for a while.
  setTimeout(() => reply({ kind: "settled", id }), 0);
};
