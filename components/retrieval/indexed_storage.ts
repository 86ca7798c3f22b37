/**
 * The source storage that the indexed storages (LibSQL, LanceDB, Chroma,
 * Postgres) share, all but their store: their chat parameters, indexing's
 * and retrieval's, and a chat's documents handed to indexing
 * (`components/indexing/`, which stores each document's index once per
 * user, content and settings, and links the chat to it) and its questions to
 * retrieval (the {@linkcode Retriever}, which ranks the chat's passages and
 * chooses an answer's sources). A storage in `components/source_storages/`
 * extends it with an `IndexBackend`: where its indexes live, and how it
 * writes, reads, links and sweeps them.
 * @module
 */
import { SourceStorage } from "../core/component.ts";
import type { Document } from "../core/document.ts";
import { quote } from "../core/errors.ts";
import {
  type ChatParams,
  componentParams,
  type ParamRule,
  type ParamSchema,
} from "../core/params.ts";
import type { Source } from "../core/source.ts";
import { diskFaultError } from "../disk_faults.ts";
import type { Embedder } from "../embeddings/embedder.ts";
import { embedderFromEnv } from "../embeddings/mod.ts";
import { BUDGET_PARAMS } from "./budget.ts";
import { type Rankings, Retriever } from "./retriever.ts";
import {
  CHUNK_PARAM_RULES,
  CHUNK_PARAMS,
  chunkLimits,
  type IndexBackend,
  Indexer,
  type IndexOptions,
} from "../indexing/mod.ts";

/** Options of the chunking source storages. */
export interface IndexedSourceStorageOptions {
  /**
   * What makes the vectors.
   * @default {embedderFromEnv()}
   */
  embedder?: Embedder;
  /**
   * Whether the chats of different users share the index of a document they
   * both have; else each user's chats have their own.
   * @default {shareIndexesFromEnv()}
   */
  shareIndexes?: boolean;
}

/**
 * A source storage that cuts documents into passages and finds them by
 * several rankings fused: hybrid search, full text (BM25) and vector
 * similarity over the chat's chunks, fused by reciprocal rank, then as many
 * sources as fit in `num_tokens`. Parsing and embedding run in a worker, off
 * the main thread. A document is indexed once per user, content, chunk
 * settings and embedder, and every chat of that user over it shares the
 * index (every chat of any user, with `shareIndexes`, env
 * `SVC_SHARE_INDEXES`); a chat links to the indexes of its documents, and an
 * index goes when its last chat does. Changing the embedder or the chunk
 * settings makes new indexes: vectors of different embedders are never mixed.
 */
export abstract class IndexedSourceStorage extends SourceStorage {
  /** Indexing's parameters (`chunk_size`, `chunk_overlap`) and retrieval's (`num_tokens`). */
  static override params: ParamSchema = Object.defineProperties({}, {
    // Their descriptors, which keep the getters that read the bounds when used.
    ...Object.getOwnPropertyDescriptors(CHUNK_PARAMS),
    ...Object.getOwnPropertyDescriptors(BUDGET_PARAMS),
  });
  static override paramRules: readonly ParamRule[] = CHUNK_PARAM_RULES;
  #embedder?: Embedder;
  readonly #shareIndexes?: boolean;
  readonly #indexer = new Indexer();
  readonly #retriever = new Retriever();

  /** @throws {SvcError} naming a bound of chunking in the environment that is not valid */
  constructor(options: IndexedSourceStorageOptions = {}) {
    super();
    // A mistyped bound stops svc when it loads the storage, rather than failing every chat.
    chunkLimits();
    this.#embedder = options.embedder;
    this.#shareIndexes = options.shareIndexes;
  }

  /** The embedder: the one given, else the environment's, chosen on first use. */
  get embedder(): Embedder {
    return this.#embedder ??= embedderFromEnv();
  }

  /**
   * The backend to use now. Called by every method; a storage resolves its
   * location (the local root, the environment) here, not at construction, and
   * keeps what it opened.
   */
  protected abstract backend(): Promise<IndexBackend>;

  override async store(documents: Document[], params: ChatParams): Promise<void> {
    await this.#indexer.store(await this.backend(), documents, this.#indexOptions(params));
  }

  override async retrieve(
    documents: Document[],
    prompt: string,
    params: ChatParams,
  ): Promise<Source[]> {
    return await this.#retriever.choose(await this.rankings(documents, prompt, params));
  }

  override async delete(params: ChatParams): Promise<void> {
    try {
      await (await this.backend()).unlink(params.chat_id);
    } catch (error) {
      throw diskFaultError(
        `Cannot remove the indexes of the chat ${quote(params.chat_name)} from ${this.displayName}`,
        error,
      ) ?? error;
    }
  }

  override async forget(document: Document, params: ChatParams): Promise<void> {
    try {
      await (await this.backend()).unlinkDocument?.(params.chat_id, document.id);
    } catch (error) {
      throw diskFaultError(
        `Cannot remove the index of ${quote(document.name)} from the chat ${
          quote(params.chat_name)
        } in ${this.displayName}`,
        error,
      ) ?? error;
    }
  }

  /**
   * What {@linkcode IndexedSourceStorage.retrieve} ranks, arm by arm and
   * fused, before the token budget. Documents not stored yet for the chat, or
   * stored with other settings or another embedder, are stored first.
   */
  async rankings(documents: Document[], prompt: string, params: ChatParams): Promise<Rankings> {
    const options = this.#indexOptions(params);
    const backend = await this.backend();
    const indexes = await this.#indexer.indexes(backend, documents, options);
    return await this.#retriever.rank(backend, this.embedder, {
      documents: indexes,
      prompt,
      history: params.history,
      standaloneQuestion: params.standaloneQuestion,
      numTokens: options.numTokens,
      chunkSize: options.chunkSize,
      signal: params.signal,
    });
  }

  /** How the chat's documents are indexed, its parameters checked as `validateParams()` checks them. */
  #indexOptions(params: ChatParams): IndexOptions & { numTokens: number } {
    const values = componentParams(IndexedSourceStorage, params) as Record<string, number>;
    return {
      chunkSize: values.chunk_size!,
      chunkOverlap: values.chunk_overlap!,
      numTokens: values.num_tokens!,
      params,
      embedder: () => this.embedder,
      shared: this.#shareIndexes,
      storage: this.displayName,
    };
  }
}
