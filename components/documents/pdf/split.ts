/**
 * Reading a PDF's pages on several threads at once, in order, as they are read: the calling thread
 * and each worker open the document and take turns of {@linkcode STRIPE_PAGES} neighbouring pages
 * (the calling thread the first, a worker the next, and so on), each worker sending back the text
 * items of every page it reads, packed, as soon as it has read it. A worker reads ahead of the
 * pages taken from it by at most two turns, so that what waits to be taken stays bounded whatever
 * the length of the document.
 * @module
 */
import type { PdfTextItem } from "./layout.ts";
import { openPdf } from "./open.ts";

/** How many neighbouring pages a thread reads in one turn. */
export const STRIPE_PAGES = 32;

/** The error of a worker that stopped, or whose message could not be read. */
export class PdfWorkerError extends Error {
  override name = "PdfWorkerError";
}

/** What a worker is asked first: the document, and which turns of its pages to read. */
export interface PdfStripeJob {
  bytes: Uint8Array;
  /** The worker's place among the threads that read, from 1 (the calling thread is 0). */
  thread: number;
  threads: number;
  stripe: number;
  /** How many pages it may read before it is told it may read more. */
  credit: number;
}

/** What a worker is told once the calling thread took pages from it: it may read so many more. */
export interface PdfCredit {
  credit: number;
}

/** The text items of one page, packed for `postMessage`: the strings, and five numbers per item. */
export interface PackedPage {
  number: number;
  strings: string[];
  /** x, y, width, height, and 1 where a line ends. */
  numbers: Float64Array<ArrayBuffer>;
}

/** A worker's messages: the page count once it opened the document, a page, or its error. */
export type PdfStripeReply =
  | { pageCount: number }
  | { page: PackedPage }
  | { error: { name: string; message: string } };

/** The numbers of the pages a thread reads, in order. */
export function* stripePages(
  pageCount: number,
  { thread, threads, stripe }: { thread: number; threads: number; stripe: number },
): Generator<number> {
  for (let first = thread * stripe + 1; first <= pageCount; first += threads * stripe) {
    for (let number = first; number < first + stripe && number <= pageCount; number++) {
      yield number;
    }
  }
}

/** Packs the items of a page, in a worker. */
export function packPage(number: number, items: readonly PdfTextItem[]): PackedPage {
  const numbers = new Float64Array(items.length * 5);
  items.forEach((item, i) =>
    numbers.set(
      [item.transform[4] ?? 0, item.transform[5] ?? 0, item.width, item.height, +item.hasEOL],
      i * 5,
    )
  );
  return { number, strings: items.map((item) => item.str), numbers };
}

/** The items of a packed page; the items keep what the layout reads of them. */
export function unpackPage({ strings, numbers }: PackedPage): PdfTextItem[] {
  return strings.map((str, i) => ({
    str,
    transform: [1, 0, 0, 1, numbers[i * 5]!, numbers[i * 5 + 1]!],
    width: numbers[i * 5 + 2]!,
    height: numbers[i * 5 + 3]!,
    hasEOL: numbers[i * 5 + 4] === 1,
  }));
}

/** Options of {@linkcode openPdfPages}. */
export interface SplitOptions {
  /**
   * How many workers read beside the calling thread; fewer when the document has fewer turns of
   * pages to share.
   * @default {0}
   */
  workers?: number;
  /**
   * How many neighbouring pages a thread reads in one turn.
   * @default {STRIPE_PAGES}
   */
  stripe?: number;
  /**
   * The main module of the workers.
   * @default {`_worker.ts`}
   */
  worker?: URL;
  /** Stops the reading: the pages' iteration rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Run before pdfjs opens the document (see `openPdf`): on the calling thread before any worker
   * starts, since a worker's own reading may open pdfjs too.
   */
  guard?: () => Promise<void>;
}

/** An opened PDF whose pages come in order as they are read. */
export interface PdfPages extends AsyncDisposable {
  readonly pageCount: number;
  /** How many of its workers still run: none once the pages were read, left, or failed. */
  readonly runningWorkers: number;
  /**
   * The text items of each page, in order, once. Ending the iteration early, or an error, ends
   * the workers and lets go of the document.
   */
  pages(): AsyncGenerator<PdfTextItem[]>;
  /** Ends the workers and lets go of the document; the same as disposing of it. */
  close(): Promise<void>;
}

/**
 * Opens a PDF on the calling thread and, when it has more than one turn of pages and `workers`
 * allows, starts workers that open it too and read their turns of pages ahead. Rejects, and its
 * pages' iteration throws, with the first error: pdfjs's own on the calling thread, an `Error` of
 * the same name and message as pdfjs's from a worker, the error that ended a worker, or the
 * signal's reason.
 */
export async function openPdfPages(
  bytes: Uint8Array,
  options: SplitOptions = {},
): Promise<PdfPages> {
  const { workers = 0, stripe = STRIPE_PAGES, signal, guard } = options;
  signal?.throwIfAborted();
  if (workers > 0) await guard?.();
  const document = await openPdf(bytes, { guard: workers > 0 ? undefined : guard });
  const { pageCount } = document;
  const threads = Math.max(1, Math.min(workers + 1, Math.ceil(pageCount / stripe)));
  const readers: StripeReader[] = [];
  try {
    for (let thread = 1; thread < threads; thread++) {
      readers.push(new StripeReader(options.worker, { bytes, thread, threads, stripe }, pageCount));
    }
  } catch (error) {
    for (const reader of readers) reader.terminate();
    await document.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  const close = () => {
    for (const reader of readers) reader.terminate();
    signal?.removeEventListener("abort", onAbort);
    return closing ??= document.close();
  };
  const onAbort = () => {
    for (const reader of readers) reader.fail(signal!.reason);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  let started = false;
  return {
    pageCount,
    get runningWorkers() {
      return readers.filter((reader) => !reader.ended).length;
    },
    async *pages() {
      if (started) throw new Error("The pages of a PDF are read once");
      started = true;
      try {
        for (let number = 1; number <= pageCount; number++) {
          signal?.throwIfAborted();
          const thread = Math.floor((number - 1) / stripe) % threads;
          yield thread === 0
            ? await document.page(number)
            : await readers[thread - 1]!.take(number);
        }
      } finally {
        await close();
      }
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** How many pages a worker may read ahead of those taken from it, in turns. */
const AHEAD_TURNS = 2;

/** The calling thread's side of a worker: the pages it sent, taken in order. */
class StripeReader {
  readonly #worker: Worker;
  readonly #pageCount: number;
  readonly #queue: PackedPage[] = [];
  #failure: { error: unknown } | undefined;
  #wake: (() => void) | undefined;
  #ended = false;

  constructor(main: URL | undefined, job: Omit<PdfStripeJob, "credit">, pageCount: number) {
    this.#pageCount = pageCount;
    this.#worker = main
      ? new Worker(main, { type: "module" })
      : new Worker(new URL("./_worker.ts", import.meta.url), { type: "module" });
    this.#worker.onmessage = ({ data }: MessageEvent<PdfStripeReply>) => {
      if ("page" in data) this.#queue.push(data.page);
      else if ("error" in data) {
        this.fail(Object.assign(new Error(data.error.message), { name: data.error.name }));
      } else if (data.pageCount !== this.#pageCount) {
        this.fail(new Error("A worker read a different number of pages than the document has"));
      }
      this.#wake?.();
    };
    this.#worker.onerror = (event) => {
      event.preventDefault();
      this.fail(new PdfWorkerError(`a worker reading it stopped: ${event.message}`));
    };
    this.#worker.onmessageerror = () =>
      this.fail(new PdfWorkerError("a page a worker sent could not be read"));
    // A copy for each, moved rather than copied again.
    const copy = new Uint8Array(job.bytes);
    const message: PdfStripeJob = { ...job, bytes: copy, credit: AHEAD_TURNS * job.stripe };
    this.#worker.postMessage(message, [copy.buffer]);
  }

  /** The items of the page numbered `number`, the next this worker reads. */
  async take(number: number): Promise<PdfTextItem[]> {
    while (this.#queue.length === 0 && !this.#failure) {
      await new Promise<void>((resolve) => this.#wake = resolve);
      this.#wake = undefined;
    }
    const page = this.#queue.shift();
    if (!page) throw this.#failure!.error;
    if (page.number !== number) {
      throw new Error(`A worker sent page ${page.number} where page ${number} was due`);
    }
    this.#worker.postMessage({ credit: 1 } satisfies PdfCredit);
    return unpackPage(page);
  }

  /**
   * Ends the worker with an error that the first page it did not send throws; the pages it sent
   * are still given.
   */
  fail(error: unknown): void {
    this.#failure ??= { error };
    this.#end();
    this.#wake?.();
  }

  /** Ends the worker and forgets the pages it sent. */
  terminate(): void {
    this.#end();
    this.#queue.length = 0;
  }

  /** Whether the worker was ended. */
  get ended(): boolean {
    return this.#ended;
  }

  #end(): void {
    this.#worker.terminate();
    this.#ended = true;
  }
}
