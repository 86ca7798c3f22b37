/**
 * How svc's reader threads parse documents: how many at once, the memory and the time each may
 * take. Settings of their own, so that the server checks them at start without loading the readers.
 * @module
 */
import { envNumber } from "./env_number.ts";

/** The settings of the reader threads, each from its variable or its default. */
export interface ReaderSettings {
  /**
   * How many documents are parsed at once, each in a thread of its own: `SVC_READERS`.
   * @default {2}
   */
  threads: number;
  /**
   * The most memory, in MiB, a reader thread's JavaScript heap may take while it parses a document;
   * past it, the thread ends and the document is refused: `SVC_READER_HEAP_MB`.
   * @default {2048}
   */
  heapMb: number;
  /**
   * The most seconds a reader thread may take over a document; past them, the thread ends and the
   * document is refused: `SVC_READER_TIMEOUT`.
   * @default {120}
   */
  timeoutSeconds: number;
}

/**
 * The reader threads' settings from the environment.
 *
 * Two threads by default, so that one long document does not hold up the next, and not more,
 * since each may take its whole heap. The heap holds what the readers of the largest documents svc
 * accepts build (mammoth's tree of a Word file at its element limit, pdfjs's of a long PDF), and
 * the time is what a 2,000-page PDF needs on a slow machine, several times over.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readerSettings } from "./reader_settings.ts";
 * assert.deepEqual(readerSettings({}), { threads: 2, heapMb: 2048, timeoutSeconds: 120 });
 * assert.equal(readerSettings({ SVC_READER_TIMEOUT: "0.5" }).timeoutSeconds, 0.5);
 * ```
 *
 * @throws {SvcError} naming the variable when one is set to anything but a positive number (a
 * whole one, but for the seconds)
 */
export function readerSettings(env?: Readonly<Record<string, string | undefined>>): ReaderSettings {
  return {
    threads: envNumber("SVC_READERS", { fallback: 2, env }),
    heapMb: envNumber("SVC_READER_HEAP_MB", { fallback: 2048, env }),
    timeoutSeconds: envNumber("SVC_READER_TIMEOUT", { fallback: 120, unit: "seconds", env }),
  };
}
