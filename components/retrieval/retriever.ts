/**
 * One question's retrieval over a chat's indexes, from the store's arms to
 * the sources an answer gets (the pipeline that `mod.ts` draws): a follow-up
 * searched as the assistant words it alone, else with the questions it
 * follows; the store's full-text and vector rankings, two more rankings of
 * their best candidates (how close together the question's words stand in
 * each, and how well its pages match the question), all four fused by
 * reciprocal rank; then as many sources as fit
 * the token budget, a passage that repeats a better one left out, and
 * neighbouring passages of a page joined into one source.
 * @module
 */
import type { Document } from "../core/document.ts";
import type { ChatParams, HistoryMessage } from "../core/params.ts";
import type { Source } from "../core/source.ts";
import type { Embedder } from "../embeddings/embedder.ts";
import type { IndexBackend, StoredChunk } from "../indexing/mod.ts";
import { pageNumbersToLocation } from "../page_location.ts";
import { fillBudget } from "./budget.ts";
import { followUpSearch } from "./follow_up.ts";
import { fuseRankings } from "./fusion.ts";
import { repeatsNone } from "./near_duplicates.ts";
import { joinNeighbours, type Passage } from "./neighbours.ts";
import { type Index, PageSearch, rankByPages } from "./page_search.ts";
import { proximityRanking, type WordsKept } from "./proximity.ts";
import { RecentLists } from "./recent_lists.ts";

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

/** What a store gives retrieval: its arms' rankings of a chat's chunks, and an index's chunks. */
export type RankedStore = Pick<IndexBackend, "search" | "chunks">;

/** A question of a chat, as {@linkcode Retriever.rank} ranks its passages. */
export interface Question {
  /** The chat's indexes, each by its key with the document it holds, in the chat's order. */
  documents: ReadonlyMap<string, Document>;
  prompt: string;
  /** The chat's messages before the question. */
  history?: readonly HistoryMessage[];
  /** Asks the chat's assistant for a follow-up worded to stand alone (`ChatParams`). */
  standaloneQuestion?: ChatParams["standaloneQuestion"];
  /** The tokens of passages the answer gets (`num_tokens`). */
  numTokens: number;
  /** The tokens of a passage (`chunk_size`). */
  chunkSize: number;
  signal?: AbortSignal;
}

/** The rankings behind an answer's sources, for evaluation and debugging. */
export interface Rankings {
  /** Each arm's ranking, as the store gives them: the vector arm last. */
  arms: Source[][];
  /** The arms fused, with the proximity and page rankings of their best candidates. */
  fused: Source[];
  /** The token budget of the chat's parameters (`num_tokens`). */
  numTokens: number;
  /** Where each ranked passage is in its document. */
  passageOf: (source: Source) => Passage;
}

/**
 * Ranks a chat's passages for a question, and chooses an answer's sources
 * among them. It keeps, for the questions that follow, the pages of the
 * indexes searched lately (for the page ranking) and the lists of keys asked
 * (the same list object for a chat asked again, which the store and the page
 * search know again by it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalDocument } from "../core/document.ts";
 * import { HashEmbedder } from "../embeddings/hash.ts";
 * import { Retriever } from "./retriever.ts";
 * const chunk = { key: "k", ordinal: 0, text: "The secret is Svc!", pageNumbers: [2], numTokens: 6 };
 * const store = {
 *   search: () => Promise.resolve([[chunk], [chunk]]),
 *   chunks: () => Promise.resolve([chunk]),
 * };
 * const retriever = new Retriever();
 * const rankings = await retriever.rank(store, new HashEmbedder(), {
 *   documents: new Map([["k", LocalDocument.fromPath("secret.md")]]),
 *   prompt: "What is the secret?",
 *   numTokens: 100,
 *   chunkSize: 50,
 * });
 * const [source] = await retriever.choose(rankings);
 * assert.equal(source!.content, "The secret is Svc!");
 * assert.equal(source!.location, "2");
 * ```
 */
export class Retriever {
  readonly #pages = new PageSearch();
  readonly #keys = new RecentLists<string>((a, b) => a === b);
  readonly #pageIndexes = new RecentLists<Index>((a, b) => a.key === b.key && a.name === b.name);

  /** The question's rankings of the passages of `question.documents`, before the token budget. */
  async rank(store: RankedStore, embedder: Embedder, question: Question): Promise<Rankings> {
    const { documents, numTokens, signal } = question;
    if (documents.size === 0) return { arms: [], fused: [], numTokens, passageOf: noPassage };
    // A follow-up is searched as the assistant words it alone, else with the questions it follows.
    const text = await followUpSearch(
      question.prompt,
      question.history,
      question.standaloneQuestion,
    );
    const [vector] = await embedder.embed([text], { signal });
    const limit = Math.max(100, Math.ceil((2 * numTokens) / question.chunkSize));
    const keys = this.#keys.of([...documents.keys()]);
    const rankings = await store.search(keys, { text, vector: vector!, limit, signal });

    const sources = new Map<string, Source>();
    const chunkOf = new Map<Source, StoredChunk>();
    const sourceOf = (chunk: StoredChunk): Source => {
      const id = `${chunk.key.slice(0, 32)}-${chunk.ordinal}`;
      let source = sources.get(id);
      if (!source) {
        source = {
          id,
          document: documents.get(chunk.key)!,
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
      // The words a store kept when it read the passage, so that its text is not read again.
      wordsOf: (source) => (chunkOf.get(source) as WordsKept).words,
    });
    // A fourth, by how well the candidates' pages match the question.
    signal?.throwIfAborted();
    const pageRanks = await this.#pages.rank(
      this.#pageIndexes.of([...documents].map(([key, document]) => ({ key, name: document.name }))),
      text,
      (key) => store.chunks(key),
    );
    const onPages = rankByPages(
      candidates.slice(0, PAGE_CANDIDATES).map((source) => ({ source, ...chunkOf.get(source)! })),
      pageRanks,
    ).map(({ source }) => source);
    return {
      arms,
      fused: fuseRankings([...arms, closeness, onPages]),
      numTokens,
      passageOf: (source) => chunkOf.get(source)!,
    };
  }

  /**
   * An answer's sources: the best ranked that fit the token budget, a passage
   * that repeats a better one left out, neighbouring passages of a page
   * joined into one source.
   */
  async choose({ fused, numTokens, passageOf }: Rankings): Promise<Source[]> {
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
}

function noPassage(source: Source): never {
  throw new Error(`No passage of this chat is ranked: ${source.id}`);
}
