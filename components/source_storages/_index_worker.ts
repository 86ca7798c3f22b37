/**
 * The indexing worker: parses, chunks and hash-embeds one document per
 * message, off the main thread. Started by `_indexing.ts`, which holds the
 * message types.
 * @module
 */
import { chunkPages } from "../chunking.ts";
import { Document } from "../core/document.ts";
import { SvcError } from "../core/errors.ts";
import type { Page } from "../core/page.ts";
import { readPages } from "../documents/mod.ts";
import { HashEmbedder } from "../embeddings/hash.ts";
import type { IndexJob, IndexReply } from "./_indexing.ts";

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<IndexJob>) => void) | null;
  postMessage(reply: IndexReply, transfer?: Transferable[]): void;
};

const embedders = new Map<number, HashEmbedder>();

scope.onmessage = async ({ data: job }) => {
  try {
    const pages = job.pages ?? await extractPages(job);
    const chunks = chunkPages(pages, {
      chunkSize: job.chunkSize,
      chunkOverlap: job.chunkOverlap,
      maxChunks: job.maxChunks,
      name: job.name,
    });
    if (job.hashDimension === undefined) return scope.postMessage({ id: job.id, chunks });

    const dimension = job.hashDimension;
    let embedder = embedders.get(dimension);
    if (!embedder) embedders.set(dimension, embedder = new HashEmbedder({ dimension }));
    // One flat buffer, moved rather than copied to the main thread.
    const vectors = new Float32Array(chunks.length * dimension);
    embedder.embedSync(chunks.map((chunk) => chunk.text)).forEach((vector, i) => {
      vectors.set(vector, i * dimension);
    });
    scope.postMessage({ id: job.id, chunks, vectors }, [vectors.buffer]);
  } catch (error) {
    const status = error instanceof SvcError ? error.status : 500;
    scope.postMessage({ id: job.id, error: { message: (error as Error).message, status } });
  }
};

/** The pages of the job's bytes, read as `Document.extractPages()` reads them. */
function extractPages(job: IndexJob): Promise<Page[]> {
  const bytes = job.bytes ?? new Uint8Array();
  class JobDocument extends Document {
    static override maxSize = job.maxSize;
    override isReadable(): Promise<boolean> {
      return Promise.resolve(true);
    }
    override read(): Promise<Uint8Array> {
      return Promise.resolve(bytes);
    }
  }
  return readPages(new JobDocument({ name: job.name }));
}
