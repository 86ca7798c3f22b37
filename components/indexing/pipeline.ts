/**
 * Turning a document into chunks and vectors off the main thread: parsing runs
 * in a reader thread (`documents/reader_pool.ts`), whose memory and time are
 * capped, and chunking and the embedders that can (those that declare a
 * `workerRecipe`) in the indexing worker (`_worker.ts`), so that a server
 * keeps answering while it indexes. The worker starts on the first job and
 * stops when no job is left and no one holds it, so it never keeps a process
 * alive.
 *
 * A compiled svc needs the worker in the binary:
 * `deno compile --include components/indexing/_worker.ts`.
 * @module
 */
import type { Chunk } from "../chunking.ts";
import type { Document } from "../core/document.ts";
import { quote, SvcError } from "../core/errors.ts";
import type { Page } from "../core/page.ts";
import { contentOf, pagesOfBytes, readsOwnPages } from "../documents/pages.ts";
import type { Embedder, WorkerRecipe } from "../embeddings/embedder.ts";

/** Options of {@linkcode chunkAndEmbed}. */
export interface ChunkAndEmbedOptions {
  /** Tokens per chunk. */
  chunkSize: number;
  /** Tokens shared by neighbouring chunks. */
  chunkOverlap: number;
  /**
   * The most chunks the document may make: more is an error before anything
   * is embedded.
   * @default {Infinity}
   */
  maxChunks?: number;
  /** What makes the vectors. */
  embedder: Embedder;
  /** The document's content, when already read; read when left out. */
  bytes?: Uint8Array;
  /** Stops the work: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Told the number of pages once they are parsed, and of chunks once they
   * are cut (before they are embedded).
   */
  onProgress?: (progress: IndexProgress) => void;
}

/** How far the indexing of one document is: pages parsed, then chunks cut. */
export type IndexProgress = { pages: number; chunks?: number };

/** A document's chunks and one vector per chunk. */
export interface EmbeddedChunks {
  /** The chunks, in document order. */
  chunks: Chunk[];
  /** The vector of each chunk, `embedder.dimension` long. */
  vectors: Float32Array[];
}

/**
 * Parses a document, cuts it into chunks and embeds them. Parsing runs in a
 * reader thread unless the document's class reads its pages itself
 * (`Document.readsOwnPages`), which only the class knows how to do here;
 * chunking in the indexing worker, and the embedder there too when it
 * declares how (`Embedder.workerRecipe`), and here otherwise.
 *
 * @throws {SvcError} 422 for a document that cannot be read, as
 * `Document.extractPages()` does, or that makes more than `maxChunks`
 * chunks; 500 when the worker fails
 */
export async function chunkAndEmbed(
  document: Document,
  options: ChunkAndEmbedOptions,
): Promise<EmbeddedChunks> {
  const { embedder, signal } = options;
  const pages = readsOwnPages(document)
    ? await document.extractPages()
    : await pagesOfBytes(options.bytes ?? await document.read(), contentOf(document), { signal });
  signal?.throwIfAborted();
  options.onProgress?.({ pages: pages.length });
  const reply = await runJob({
    name: document.name,
    format: document.format,
    pages,
    chunkSize: options.chunkSize,
    chunkOverlap: options.chunkOverlap,
    maxChunks: options.maxChunks,
    embedder: embedder.workerRecipe,
  }, { signal, onProgress: options.onProgress });

  let vectors: Float32Array[];
  if (reply.vectors) {
    const { vectors: flat, dimension } = reply.vectors;
    vectors = reply.chunks.map((_, i) => flat.subarray(i * dimension, (i + 1) * dimension));
  } else {
    vectors = reply.chunks.length === 0
      ? []
      : await embedder.embed(reply.chunks.map((chunk) => chunk.text), { signal });
  }
  if (
    vectors.length !== reply.chunks.length ||
    vectors.some((vector) => vector.length !== embedder.dimension)
  ) {
    throw new SvcError(
      `The embedder ${quote(embedder.id)} gave ${vectors.length} vectors for ` +
        `${reply.chunks.length} chunks, or vectors not ${embedder.dimension} long`,
    );
  }
  return { chunks: reply.chunks, vectors };
}

/** What a job of the indexing worker gets: a document's pages, and what to make of them. */
export interface IndexJob {
  id: number;
  /** The document's name, for error messages. */
  name: string;
  /** Its format, as `Document.format` names it, which says whether its pages are slides. */
  format: string;
  pages: Page[];
  chunkSize: number;
  chunkOverlap: number;
  /** The most chunks the document may make; no limit when left out. */
  maxChunks?: number;
  /** The embedder to make there and embed with; no vectors when left out. */
  embedder?: WorkerRecipe;
}

/** What the indexing worker answers: the vectors as one buffer, `dimension` numbers a chunk. */
export type IndexReply =
  | { id: number; chunks: Chunk[]; vectors?: { vectors: Float32Array; dimension: number } }
  | { id: number; error: { message: string; status: number } }
  | { id: number; progress: IndexProgress };

type Done = Extract<IndexReply, { chunks: Chunk[] }>;

interface Pending {
  resolve(reply: Done): void;
  reject(error: unknown): void;
  signal?: AbortSignal;
  onAbort(): void;
  onProgress?: (progress: IndexProgress) => void;
}

let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, Pending>();
let holds = 0;

/**
 * Keeps the indexing worker running until disposed, so that the documents of
 * one `store()` share a worker rather than start one each.
 */
export function holdIndexingWorker(): Disposable {
  holds++;
  let held = true;
  return {
    [Symbol.dispose]() {
      if (!held) return;
      held = false;
      holds--;
      if (holds === 0 && pending.size === 0) stopWorker();
    },
  };
}

function runJob(
  job: Omit<IndexJob, "id">,
  { signal, onProgress }: Pick<ChunkAndEmbedOptions, "signal" | "onProgress">,
): Promise<Done> {
  signal?.throwIfAborted();
  const id = nextId++;
  worker ??= startWorker();
  const running = worker;
  return new Promise((resolve, reject) => {
    const onAbort = () => settle(id)?.reject(signal!.reason);
    pending.set(id, { resolve, reject, signal, onAbort, onProgress });
    signal?.addEventListener("abort", onAbort, { once: true });
    running.postMessage({ ...job, id } satisfies IndexJob);
  });
}

function startWorker(): Worker {
  const started = new Worker(new URL("./_worker.ts", import.meta.url), { type: "module" });
  started.onmessage = ({ data }: MessageEvent<IndexReply>) => {
    if ("progress" in data) {
      // A step of a job still under way: an aborted one is gone from `pending`, and not told.
      pending.get(data.id)?.onProgress?.(data.progress);
      return;
    }
    const job = settle(data.id);
    if (!job) return; // aborted meanwhile
    if ("error" in data) {
      job.reject(new SvcError(data.error.message, { status: data.error.status }));
    } else job.resolve(data);
  };
  started.onerror = (event) => {
    event.preventDefault();
    failAll(`The indexing worker failed: ${event.message}`);
  };
  started.onmessageerror = () => failAll("The indexing worker sent a message that cannot be read");
  return started;
}

function failAll(message: string): void {
  for (const id of [...pending.keys()]) settle(id)?.reject(new SvcError(message));
  stopWorker();
}

/** Forgets a job; stops the worker when it was the last, which also ends aborted work. */
function settle(id: number): Pending | undefined {
  const job = pending.get(id);
  if (!job) return undefined;
  pending.delete(id);
  job.signal?.removeEventListener("abort", job.onAbort);
  if (pending.size === 0 && holds === 0) stopWorker();
  return job;
}

function stopWorker(): void {
  worker?.terminate();
  worker = undefined;
}
