/**
 * Turning a document into chunks and vectors off the main thread: parsing
 * and hash embedding run in a worker (`_index_worker.ts`), so that a server
 * keeps answering while it indexes. The worker starts on the first job and
 * stops when no job is left and no one holds it, so it never keeps a process
 * alive.
 *
 * A compiled svc needs the worker in the binary:
 * `deno compile --include components/source_storages/_index_worker.ts`.
 * @module
 */
import type { Chunk } from "../chunking.ts";
import { Document } from "../core/document.ts";
import { quote, SvcError } from "../core/errors.ts";
import type { Page } from "../core/page.ts";
import type { Embedder } from "../embeddings/embedder.ts";
import { HashEmbedder } from "../embeddings/hash.ts";

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
}

/** A document's chunks and one vector per chunk. */
export interface EmbeddedChunks {
  /** The chunks, in document order. */
  chunks: Chunk[];
  /** The vector of each chunk, `embedder.dimension` long. */
  vectors: Float32Array[];
}

/**
 * Parses a document, cuts it into chunks and embeds them. Parsing and the
 * hash embedder run in the indexing worker; other embedders call their
 * servers from here, which is I/O, not work for this thread. A document class
 * that overrides `extractPages()` is parsed here, since only the class knows
 * how.
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
  const ownParser = document.extractPages !== Document.prototype.extractPages;
  const pages = ownParser ? await document.extractPages() : undefined;
  const bytes = ownParser ? undefined : options.bytes ?? await document.read();
  // The worker rebuilds the hash embedder from its dimension; a subclass may
  // embed differently, so it embeds here.
  const portable = Object.getPrototypeOf(embedder) === HashEmbedder.prototype;
  const hashDimension = portable ? embedder.dimension : undefined;
  const reply = await runJob({
    name: document.name,
    maxSize: (document.constructor as typeof Document).maxSize,
    bytes,
    pages,
    chunkSize: options.chunkSize,
    chunkOverlap: options.chunkOverlap,
    maxChunks: options.maxChunks,
    hashDimension,
  }, signal);

  let vectors: Float32Array[];
  if (reply.vectors) {
    const dimension = hashDimension!;
    vectors = reply.chunks.map((_, i) =>
      reply.vectors!.subarray(i * dimension, (i + 1) * dimension)
    );
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

/** The SHA-256 of bytes, in hex: what identifies a document's content. */
export async function contentHash(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** What a job of the indexing worker gets. */
export interface IndexJob {
  id: number;
  name: string;
  maxSize: number;
  /** The document's content, to parse in the worker; or else `pages`. */
  bytes?: Uint8Array;
  pages?: Page[];
  chunkSize: number;
  chunkOverlap: number;
  /** The most chunks the document may make; no limit when left out. */
  maxChunks?: number;
  /** Embed with `HashEmbedder` of this dimension; no vectors when left out. */
  hashDimension?: number;
}

/** What the indexing worker answers. */
export type IndexReply =
  | { id: number; chunks: Chunk[]; vectors?: Float32Array }
  | { id: number; error: { message: string; status: number } };

type Done = Extract<IndexReply, { chunks: Chunk[] }>;

interface Pending {
  resolve(reply: Done): void;
  reject(error: unknown): void;
  signal?: AbortSignal;
  onAbort(): void;
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

function runJob(job: Omit<IndexJob, "id">, signal?: AbortSignal): Promise<Done> {
  signal?.throwIfAborted();
  const id = nextId++;
  worker ??= startWorker();
  const running = worker;
  return new Promise((resolve, reject) => {
    const onAbort = () => settle(id)?.reject(signal!.reason);
    pending.set(id, { resolve, reject, signal, onAbort });
    signal?.addEventListener("abort", onAbort, { once: true });
    running.postMessage({ ...job, id } satisfies IndexJob);
  });
}

function startWorker(): Worker {
  const started = new Worker(new URL("./_index_worker.ts", import.meta.url), { type: "module" });
  started.onmessage = ({ data }: MessageEvent<IndexReply>) => {
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
