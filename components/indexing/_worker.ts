/**
 * The indexing worker: reads, chunks and embeds one document per message, off
 * the main thread. It reads the bytes with the handler of the document's
 * format (a PDF page by page, as each is laid out), and embeds with the
 * embedder the job's recipe makes. Started by `pipeline.ts`, which holds the
 * message types.
 * @module
 */
import { chunkPages } from "../chunking.ts";
import { SvcError } from "../core/errors.ts";
import type { Page } from "../core/page.ts";
import { isSlides, streamPagesOfBytes } from "../documents/pages.ts";
import type { Embedder } from "../embeddings/embedder.ts";
import { rebuildEmbedder } from "../embeddings/recipe.ts";
import type { IndexJob, IndexReply } from "./pipeline.ts";

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<IndexJob>) => void) | null;
  postMessage(reply: IndexReply, transfer?: Transferable[]): void;
};

/** The embedders made so far, by their recipe. */
const embedders = new Map<string, Embedder>();

scope.onmessage = async ({ data: job }) => {
  try {
    const pages = job.pages ?? await readPages(job);
    scope.postMessage({ id: job.id, progress: { pages: pages.length } });
    const chunks = chunkPages(pages, {
      chunkSize: job.chunkSize,
      chunkOverlap: job.chunkOverlap,
      maxChunks: job.maxChunks,
      name: job.name,
      everyPage: isSlides(job.format),
    });
    scope.postMessage({ id: job.id, progress: { pages: pages.length, chunks: chunks.length } });
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

/**
 * The pages of a job's content, as they are read: a PDF's pages come laid out one by one, so that
 * pdfjs's text items are held for a window of pages only, and their texts are kept for the
 * chunking, which cuts a document's chunks across its pages.
 */
async function readPages(job: IndexJob): Promise<Page[]> {
  const pages: Page[] = [];
  for await (const page of streamPagesOfBytes(job.bytes ?? new Uint8Array(), job)) {
    pages.push(page);
  }
  return pages;
}
