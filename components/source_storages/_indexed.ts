/**
 * The shared half of the chunking source storages (LibSQL, LanceDB, Chroma):
 * chat parameters, indexing each document once per user, content and
 * settings, links from chats to the indexes they use, hybrid retrieval with
 * reciprocal rank fusion of the full-text and vector rankings, of the
 * candidates' proximity and of their pages' full-text ranking (a follow-up
 * searched with the questions before it),
 * passages that repeat a better one left out, and the token budget. A storage supplies an
 * `IndexBackend` (`components/indexing/`): where indexes live and
 * how they are searched; the indexing itself is `components/indexing/`'s.
 * @module
 */
import { z } from "zod";
import { pageNumbersToLocation } from "../page_location.ts";
import { SourceStorage } from "../core/component.ts";
import type { Document } from "../core/document.ts";
import { quote, SvcError } from "../core/errors.ts";
import type { ChatParams, ParamRule, ParamSchema } from "../core/params.ts";
import { envVar } from "../core/requirements.ts";
import type { Source } from "../core/source.ts";
import { diskFaultError } from "../disk_faults.ts";
import type { Embedder } from "../embeddings/embedder.ts";
import { embedderFromEnv } from "../embeddings/mod.ts";
import { fillBudget, numTokensParam } from "./_budget.ts";
import { joinNeighbours, type Passage } from "./_neighbours.ts";
import { chunkLimits, chunkSizeParam, overlapBelowSize } from "./_chunk_limits.ts";
import { followUpText } from "./_follow_up.ts";
import { fuseRankings } from "./_fusion.ts";
import { type Index, PageSearch, rankByPages } from "./_page_search.ts";
import { RecentLists } from "./_recent_lists.ts";
import { proximityRanking, type WordsKept } from "./_proximity.ts";
import { repeatsNone } from "./_near_duplicates.ts";
import {
  chunkAndEmbed,
  contentHash,
  holdIndexingWorker,
  type IndexBackend,
  type IndexInfo,
  indexInfo,
  type StoredChunk,
} from "../indexing/mod.ts";

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

/**
 * How many of the best candidates of the full-text and vector rankings the
 * proximity ranking orders: enough for every source an answer can take, few
 * enough that a passage far down both rankings is not pulled up by one close pair.
 */
const PROXIMITY_CANDIDATES = 30;

/**
 * How many of the best candidates the page ranking orders: the depth of the
 * full-text and vector rankings, so that a passage only its page matches well
 * can still rise.
 */
const PAGE_CANDIDATES = 100;
// Documents parsed and embedded that a store may have waiting to be written: a backend that
// writes several at once (LanceDB) gets them while the next ones are parsed.
const WRITES_AHEAD = 8;

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

/** The rankings behind an answer's sources, for evaluation and debugging. */
export interface Rankings {
  /** Each arm's ranking, as the backend gives them: the vector arm last. */
  arms: Source[][];
  /** The arms fused, with the proximity ranking of their best candidates, before the token budget. */
  fused: Source[];
  /** The token budget of the chat's parameters (`num_tokens`), checked once with the others. */
  numTokens: number;
  /** Where each ranked passage is in its document. */
  passageOf: (source: Source) => Passage;
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
  // Builds in progress, so that chats storing the same new document at once
  // index it once.
  #building = new WeakMap<IndexBackend, Map<string, Promise<void>>>();
  // The pages of the indexes searched lately, for the page ranking.
  readonly #pages = new PageSearch();
  readonly #keys = new RecentLists<string>((a, b) => a === b);
  readonly #pageIndexes = new RecentLists<Index>((a, b) => a.key === b.key && a.name === b.name);

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
    const settings = settingsOf(params);
    const backend = await this.backend();
    using _worker = holdIndexingWorker();
    // Two lanes: the worker parses and embeds one document while this thread
    // reads the other; each document parsed is written behind them (up to
    // WRITES_AHEAD at once). After a failure, the documents under way are
    // finished and no other is begun.
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
          ({ written } = await this.#storeOne(backend, document, {
            ...settings,
            chatId: params.chat_id,
            params,
          }));
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

  override async retrieve(
    documents: Document[],
    prompt: string,
    params: ChatParams,
  ): Promise<Source[]> {
    const { fused, numTokens, passageOf } = await this.rankings(documents, prompt, params);
    // Repeats are checked against the sources taken only, which the budget keeps few.
    const chosen = fillBudget(fused, numTokens, { accept: repeatsNone() });
    const joined = joinNeighbours(chosen, passageOf);
    if (joined.length === chosen.length) return chosen;
    // A joined source leaves out the text its second passage repeated: its tokens are counted anew.
    const { countTokens } = await import("../token_counts.ts");
    const unjoined = new Set(chosen);
    return joined.map((source) =>
      unjoined.has(source) ? source : { ...source, numTokens: countTokens(source.content) }
    );
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
    const settings = settingsOf(params);
    const backend = await this.backend();
    const embedder = this.embedder;
    const current = (info: IndexInfo | undefined) =>
      info !== undefined && info.chunkSize === settings.chunkSize &&
      info.chunkOverlap === settings.chunkOverlap && info.embedder === embedder.id &&
      info.dimension === embedder.dimension;

    let links = await backend.links(params.chat_id);
    const missing = documents.filter((document) => !current(links.get(document.id)));
    if (missing.length > 0) {
      await this.store(missing, params);
      links = await backend.links(params.chat_id);
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
    if (documentOf.size === 0) {
      return { arms: [], fused: [], numTokens: settings.numTokens, passageOf: noPassage };
    }

    // A follow-up is searched for with the questions it follows.
    const text = followUpText(prompt, params.history) ?? prompt;
    const [vector] = await embedder.embed([text], { signal: params.signal });
    const limit = Math.max(100, Math.ceil((2 * settings.numTokens) / settings.chunkSize));
    // The same lists as an earlier question's when they hold the same (a chat
    // asked again), which the backend and the page search know again by them.
    const keys = this.#keys.of([...documentOf.keys()]);
    const rankings = await backend.search(keys, {
      text,
      vector: vector!,
      limit,
      signal: params.signal,
    });

    const sources = new Map<string, Source>();
    const chunkOf = new Map<Source, StoredChunk>();
    const sourceOf = (chunk: StoredChunk): Source => {
      const id = `${chunk.key.slice(0, 32)}-${chunk.ordinal}`;
      let source = sources.get(id);
      if (!source) {
        source = {
          id,
          document: documentOf.get(chunk.key)!,
          location: pageNumbersToLocation(chunk.pageNumbers),
          content: chunk.text,
          numTokens: chunk.numTokens,
        };
        sources.set(id, source);
        chunkOf.set(source, chunk);
      }
      return source;
    };
    const arms = rankings.map((ranking) => ranking.map(sourceOf));
    const candidates = fuseRankings(arms);
    // A third ranking, by how close together the question's words stand in the best candidates.
    const closeness = proximityRanking(candidates.slice(0, PROXIMITY_CANDIDATES), text, {
      // The words a backend kept when it read the passage, so that its text is not read again.
      wordsOf: (source) => (chunkOf.get(source) as WordsKept).words,
    });
    // A fourth, by how well the candidates' pages match the question.
    params.signal?.throwIfAborted();
    const pageRanks = await this.#pages.rank(
      this.#pageIndexes.of(
        [...documentOf].map(([key, document]) => ({ key, name: document.name })),
      ),
      text,
      (key) => backend.chunks(key),
    );
    const onPages = rankByPages(
      candidates.slice(0, PAGE_CANDIDATES).map((source) => ({ source, ...chunkOf.get(source)! })),
      pageRanks,
    ).map(({ source }) => source);
    return {
      arms,
      fused: fuseRankings([...arms, closeness, onPages]),
      numTokens: settings.numTokens,
      passageOf: (source) => chunkOf.get(source)!,
    };
  }

  /**
   * Stores a document's index, and links the chat's document to it. Settles
   * once the document was parsed and embedded (or found indexed), with the
   * write still under way.
   */
  async #storeOne(
    backend: IndexBackend,
    document: Document,
    options: Settings & { chatId: string; params: ChatParams },
  ): Promise<{ written: Promise<void> }> {
    const { chatId, params, ...settings } = options;
    const embedder = this.embedder;
    const bytes = await document.read();
    // Read at each store, as the embedder is: the environment may change
    // between chats of a long-lived process (tests, a script).
    const shared = this.#shareIndexes ?? shareIndexesFromEnv();
    const info = await indexInfo({
      ...(shared ? {} : { owner: params.user }),
      contentHash: await contentHash(bytes),
      chunkSize: settings.chunkSize,
      chunkOverlap: settings.chunkOverlap,
      embedder: embedder.id,
      dimension: embedder.dimension,
    });
    const link = { chatId, documentId: document.id, key: info.key };
    let building = this.#building.get(backend);
    if (!building) this.#building.set(backend, building = new Map());
    // A full or read-only disk is no bug: it is named, with what could not be written.
    const stored = <T>(writing: Promise<T>): Promise<T> =>
      writing.catch((error) => {
        throw diskFaultError(
          `Cannot store the index of ${quote(document.name)} in ${this.displayName}`,
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
          chunkSize: settings.chunkSize,
          chunkOverlap: settings.chunkOverlap,
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

function noPassage(source: Source): never {
  throw new Error(`No passage of this chat is ranked: ${source.id}`);
}
