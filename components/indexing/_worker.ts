/**
 * The indexing worker: chunks and embeds one document's pages per message,
 * off the main thread, with the embedder the job's recipe makes. Started by
 * `pipeline.ts`, which holds the message types.
 * @module
 */
import { chunkPages } from "../chunking.ts";
import { SvcError } from "../core/errors.ts";
import { lowerThreadPriority } from "../core/thread_priority.ts";
import { isSlides } from "../documents/parse.ts";
import type { Embedder } from "../embeddings/embedder.ts";
import { rebuildEmbedder } from "../embeddings/recipe.ts";
import type { IndexJob, IndexReply } from "./pipeline.ts";

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<IndexJob>) => void) | null;
  postMessage(reply: IndexReply, transfer?: Transferable[]): void;
};

lowerThreadPriority();

/** The embedders made so far, by their recipe. */
const embedders = new Map<string, Embedder>();

scope.onmessage = async ({ data: job }) => {
  try {
    const chunks = chunkPages(job.pages, {
      chunkSize: job.chunkSize,
      chunkOverlap: job.chunkOverlap,
      maxChunks: job.maxChunks,
      name: job.name,
      everyPage: isSlides(job.format),
    });
    scope.postMessage({ id: job.id, progress: { pages: job.pages.length, chunks: chunks.length } });
    if (job.embedder === undefined) return scope.postMessage({ id: job.id, chunks });

    const recipe = JSON.stringify(job.embedder);
    let embedder = embedders.get(recipe);
    if (!embedder) embedders.set(recipe, embedder = rebuildEmbedder(job.embedder));
    const { dimension } = embedder;
    // One flat buffer, moved rather than copied to the main thread.
    const vectors = new Float32Array(chunks.length * dimension);
    const embedded = chunks.length === 0
      ? []
      : await embedder.embed(chunks.map((chunk) => chunk.text));
    embedded.forEach((vector, i) => vectors.set(vector, i * dimension));
    scope.postMessage({ id: job.id, chunks, vectors: { vectors, dimension } }, [vectors.buffer]);
  } catch (error) {
    const status = error instanceof SvcError ? error.status : 500;
    scope.postMessage({ id: job.id, error: { message: (error as Error).message, status } });
  }
};
