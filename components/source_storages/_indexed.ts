/**
 * The shared half of the indexed source storages (LibSQL, LanceDB, Chroma,
 * Postgres): their chat parameters, and a chat's documents handed to
 * indexing (`components/indexing/`, which stores each document's index once
 * per user, content and settings, and links the chat to it) and its
 * questions to retrieval (`components/retrieval/`, which ranks the chat's
 * passages and chooses an answer's sources). A storage supplies an
 * `IndexBackend`: where its indexes live, and how it writes, reads, links
 * and sweeps them.
 * @module
 */
import { z } from "zod";
import { SourceStorage } from "../core/component.ts";
import type { Document } from "../core/document.ts";
import { quote, SvcError } from "../core/errors.ts";
import type { ChatParams, ParamRule, ParamSchema } from "../core/params.ts";
import { envVar } from "../core/requirements.ts";
import type { Source } from "../core/source.ts";
import { diskFaultError } from "../disk_faults.ts";
import type { Embedder } from "../embeddings/embedder.ts";
import { embedderFromEnv } from "../embeddings/mod.ts";
import { numTokensParam, type Rankings, Retriever } from "../retrieval/mod.ts";
import { chunkLimits, chunkSizeParam, overlapBelowSize } from "../indexing/chunk_limits.ts";
import { type IndexBackend, Indexer, type IndexOptions } from "../indexing/mod.ts";

/**
 * The default `chunk_overlap`, in tokens. Chunks end at paragraphs and
 * sentences, and an answer's sources drop the text they repeat, so a large
 * overlap mostly makes more chunks that say the same.
 */
export const DEFAULT_CHUNK_OVERLAP = 100;

/**
 * The default `num_tokens`: the tokens of passages an answer gets. About five
 * passages of the default size, so that a right passage ranked fourth or fifth
 * still reaches the model; small beside the context of the models svc calls.
 */
export const DEFAULT_NUM_TOKENS = 1536;

/** The chat parameters of every chunking source storage. */
export const INDEX_PARAMS: ParamSchema = {
  // A getter, so that the bounds of SVC_MIN_CHUNK_SIZE and SVC_MAX_CHUNK_SIZE are read when used.
  get chunk_size() {
    return chunkSizeParam();
  },
  chunk_overlap: z.int().nonnegative().default(DEFAULT_CHUNK_OVERLAP),
  // A getter, so that the bound of SVC_MAX_NUM_TOKENS is read when used.
  get num_tokens() {
    return numTokensParam(DEFAULT_NUM_TOKENS);
  },
};

/** The checks over several parameters of every chunking source storage. */
export const INDEX_PARAM_RULES: readonly ParamRule[] = [overlapBelowSize];

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

/** The variable that lets the chats of different users share indexes. */
export const SHARE_INDEXES_ENV = "SVC_SHARE_INDEXES";

/**
 * Whether the environment lets different users' chats share indexes:
 * `SVC_SHARE_INDEXES` set to `true` (or `1`, `yes`, `on`). Off by default,
 * since a shared index tells one user, by how fast a document is prepared,
 * that another user has the same document.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shareIndexesFromEnv } from "./_indexed.ts";
 * assert.equal(shareIndexesFromEnv(undefined), false);
 * assert.equal(shareIndexesFromEnv("true"), true);
 * ```
 *
 * @throws {SvcError} for a value that is neither true nor false
 */
export function shareIndexesFromEnv(value = envVar(SHARE_INDEXES_ENV)): boolean {
  const setting = value?.trim().toLowerCase() ?? "";
  if (["true", "1", "yes", "on"].includes(setting)) return true;
  if (["false", "0", "no", "off", ""].includes(setting)) return false;
  throw new SvcError(
    `The environment variable ${quote(SHARE_INDEXES_ENV)} must be "true" or "false", ` +
      `not ${quote(value!)}`,
  );
}

/**
 * A source storage that cuts documents into passages and finds them by
 * several rankings fused. A document is indexed once per user, content, chunk
 * settings and embedder, and every chat of that user over it shares the
 * index (every chat of any user, with `shareIndexes`); a chat links to the
 * indexes of its documents, and an index goes when its last chat does.
 * Changing the embedder or the chunk settings makes new indexes: vectors of
 * different embedders are never mixed.
 */
export abstract class IndexedSourceStorage extends SourceStorage {
  static override params: ParamSchema = INDEX_PARAMS;
  static override paramRules: readonly ParamRule[] = INDEX_PARAM_RULES;
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
    return {
      ...settingsOf(params),
      params,
      embedder: () => this.embedder,
      // Read at each store, as the embedder is: the environment may change
      // between chats of a long-lived process (tests, a script).
      shared: () => this.#shareIndexes ?? shareIndexesFromEnv(),
      storage: this.displayName,
    };
  }
}

interface Settings {
  chunkSize: number;
  chunkOverlap: number;
  numTokens: number;
}

/** The settings of the chat parameters, checked as `validateParams()` checks them. */
function settingsOf(params: ChatParams): Settings {
  const parsed = settingsSchema().safeParse(params);
  if (!parsed.success) {
    throw new SvcError(`The chat parameters are not valid: ${z.prettifyError(parsed.error)}`, {
      status: 422,
    });
  }
  const values = parsed.data as Record<string, number>;
  for (const rule of INDEX_PARAM_RULES) {
    const found = rule(values);
    if (found) {
      throw new SvcError(`${found.name} ${found.problem}, not ${values[found.name]}`, {
        status: 422,
      });
    }
  }
  const { chunk_size, chunk_overlap, num_tokens } = values;
  return { chunkSize: chunk_size!, chunkOverlap: chunk_overlap!, numTokens: num_tokens! };
}

// The schema of the chat parameters, made again only when the chunking bounds change:
// making it took about as long as a small chat's full-text search.
let schema: { bounds: string; schema: z.ZodType } | undefined;

function settingsSchema(): z.ZodType {
  const bounds = JSON.stringify(chunkLimits());
  if (schema?.bounds !== bounds) schema = { bounds, schema: z.object(INDEX_PARAMS) };
  return schema.schema;
}
