/**
 * Storing a chat's documents in an {@linkcode IndexBackend}: each document
 * indexed once per owner, content, chunk settings and embedder (its key,
 * `indexInfo()`), parsed and embedded by the pipeline (`pipeline.ts`), and
 * linked to the chat; a document indexed before, for this chat or another, is
 * linked without being read again.
 * @module
 */
import type { Document } from "../core/document.ts";
import { quote, SvcError } from "../core/errors.ts";
import type { ChatParams } from "../core/params.ts";
import { diskFaultError } from "../disk_faults.ts";
import type { Embedder } from "../embeddings/embedder.ts";
import { contentHash, type IndexBackend, type IndexInfo, indexInfo } from "./backend.ts";
import { chunkLimits } from "./chunk_limits.ts";
import { chunkAndEmbed, holdIndexingWorker } from "./pipeline.ts";
import { shareIndexesFromEnv } from "./share_indexes.ts";

// Documents parsed and embedded that a store may have waiting to be written: a backend that
// writes several at once (LanceDB) gets them while the next ones are parsed.
const WRITES_AHEAD = 8;

/** How {@linkcode Indexer.store} indexes a chat's documents. */
export interface IndexOptions {
  /** The chat's parameters: its id, user, progress and signal. */
  params: ChatParams;
  chunkSize: number;
  chunkOverlap: number;
  /** The embedder, asked at each document (an embedder the environment names fails there). */
  embedder: () => Embedder;
  /**
   * Whether the chats of every user share an index (else each user's have
   * their own).
   * @default {shareIndexesFromEnv()}, read at each document: the environment
   * may change between chats of a long-lived process (tests, a script)
   */
  shared?: boolean;
  /** The storage's name, in the message of a disk that cannot be written. */
  storage: string;
}

/**
 * Indexes documents into backends. Chats that store the same new document at
 * once index it once: the builds in progress are kept, by backend and key.
 */
export class Indexer {
  readonly #building = new WeakMap<IndexBackend, Map<string, Promise<void>>>();

  /**
   * Indexes the documents, each linked to the chat. Two lanes: the worker
   * parses and embeds one document while this thread reads the other; each
   * document parsed is written behind them (up to {@linkcode WRITES_AHEAD} at
   * once). After a failure, the documents under way are finished and no other
   * is begun; the failure is thrown once they are.
   */
  async store(backend: IndexBackend, documents: Document[], options: IndexOptions): Promise<void> {
    const { params } = options;
    using _worker = holdIndexingWorker();
    let next = 0;
    let failed = false;
    const writes = new Set<Promise<void>>();
    const fail = (document: Document, error: unknown): never => {
      failed = true;
      if (!params.signal?.aborted) {
        params.progress?.({ document, stage: "failed", error: (error as Error).message });
      }
      throw error;
    };
    const lane = async () => {
      while (!failed && next < documents.length) {
        const document = documents[next++]!;
        let written: Promise<void>;
        try {
          params.signal?.throwIfAborted();
          params.progress?.({ document, stage: "reading" });
          ({ written } = await this.#storeOne(backend, document, options));
        } catch (error) {
          return fail(document, error);
        }
        const write: Promise<void> = written.then(
          () => void writes.delete(write),
          (error) => fail(document, error),
        );
        // Awaited below, with the others; a failed one stays in the set and ends the lane.
        write.catch(() => {});
        writes.add(write);
        while (writes.size >= WRITES_AHEAD) await Promise.race(writes);
      }
    };
    const lanes = await Promise.allSettled([lane(), lane()]);
    const written = await Promise.allSettled([...writes]);
    const failure = [...lanes, ...written].find((result) => result.status === "rejected");
    if (failure) throw failure.reason;
  }

  /**
   * The indexes of a chat's documents: each key with the first of the
   * documents it holds, in their order. The documents not stored for the chat
   * yet, or stored with other chunk settings or another embedder, are stored
   * first.
   *
   * @throws {SvcError} 409 for a document whose index went as it was stored (the chat deleted)
   */
  async indexes(
    backend: IndexBackend,
    documents: Document[],
    options: IndexOptions,
  ): Promise<Map<string, Document>> {
    const chatId = options.params.chat_id;
    const embedder = options.embedder();
    const current = (info: IndexInfo | undefined) =>
      info !== undefined && info.chunkSize === options.chunkSize &&
      info.chunkOverlap === options.chunkOverlap && info.embedder === embedder.id &&
      info.dimension === embedder.dimension;
    let links = await backend.links(chatId);
    const missing = documents.filter((document) => !current(links.get(document.id)));
    if (missing.length > 0) {
      await this.store(backend, missing, options);
      links = await backend.links(chatId);
    }
    const documentOf = new Map<string, Document>();
    for (const document of documents) {
      const info = links.get(document.id);
      if (!current(info)) {
        throw new SvcError(
          `The document ${quote(document.name)} was stored, but its index is gone: ` +
            `was the chat deleted meanwhile?`,
          { status: 409 },
        );
      }
      if (!documentOf.has(info!.key)) documentOf.set(info!.key, document);
    }
    return documentOf;
  }

  /**
   * Stores a document's index, and links the chat's document to it. Settles
   * once the document was parsed and embedded (or found indexed), with the
   * write still under way.
   */
  async #storeOne(
    backend: IndexBackend,
    document: Document,
    options: IndexOptions,
  ): Promise<{ written: Promise<void> }> {
    const { params } = options;
    const embedder = options.embedder();
    const bytes = await document.read();
    const info = await indexInfo({
      ...((options.shared ?? shareIndexesFromEnv()) ? {} : { owner: params.user }),
      contentHash: await contentHash(bytes),
      chunkSize: options.chunkSize,
      chunkOverlap: options.chunkOverlap,
      embedder: embedder.id,
      dimension: embedder.dimension,
    });
    const link = { chatId: params.chat_id, documentId: document.id, key: info.key };
    let building = this.#building.get(backend);
    if (!building) this.#building.set(backend, building = new Map());
    // A full or read-only disk is no bug: it is named, with what could not be written.
    const stored = <T>(writing: Promise<T>): Promise<T> =>
      writing.catch((error) => {
        throw diskFaultError(
          `Cannot store the index of ${quote(document.name)} in ${options.storage}`,
          error,
        ) ?? error;
      });

    // Another chat may be building the same index: wait for it once, then
    // build it here if it still is not there (that build may have been aborted).
    for (let waited = false;; waited = true) {
      if (await stored(backend.link(link))) {
        // Indexed before, for this chat or another: nothing is parsed again.
        params.progress?.({ document, stage: "indexed" });
        return { written: Promise.resolve() };
      }
      const other = building.get(info.key);
      if (other && !waited) {
        await other.catch(() => {});
        continue;
      }
      let parsed!: () => void;
      const ready = new Promise<void>((resolve) => parsed = resolve);
      const build: Promise<void> = (async () => {
        const { chunks, vectors } = await chunkAndEmbed(document, {
          chunkSize: options.chunkSize,
          chunkOverlap: options.chunkOverlap,
          maxChunks: chunkLimits().maxChunksPerDocument,
          embedder,
          bytes,
          signal: params.signal,
          onProgress: ({ pages, chunks }) => {
            if (chunks === undefined) params.progress?.({ document, stage: "parsed", pages });
          },
        });
        params.signal?.throwIfAborted();
        parsed();
        await stored(backend.add({ ...info, chunks, vectors }, link));
        params.progress?.({ document, stage: "indexed", chunks: chunks.length });
      })().finally(() => {
        if (building.get(info.key) === build) building.delete(info.key);
      });
      building.set(info.key, build);
      // Awaited by the caller once the document is parsed; a failure before that is thrown here.
      build.catch(() => {});
      await Promise.race([ready, build]);
      return { written: build };
    }
  }
}
