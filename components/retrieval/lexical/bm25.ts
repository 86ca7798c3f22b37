/**
 * BM25 in memory, for a store that has no ranked full-text search (Chroma,
 * `remote_search.ts`). An index holds the term statistics of one stored document's
 * chunks; a search ranks the chunks of several indexes as if they were one
 * collection, with the words as `contentWords()` and `stem()` see them, which
 * is how the hash embedder sees them too.
 * @module
 */
import { contentWords, stem } from "../../text/words.ts";

/** BM25's k1, the usual constant (Robertson and Zaragoza, 2009), as SQLite's FTS5 uses. */
export const K1 = 1.2;
/** BM25's b, the usual constant, as SQLite's FTS5 uses. */
export const B = 0.75;
const MAX_QUERY_TERMS = 32;

/** The term statistics of a list of texts (the chunks of one document). */
export class Bm25Index {
  /** The number of texts. */
  readonly size: number;
  /** The number of terms of all texts together. */
  readonly totalLength: number;
  /** The number of (term, text) pairs: what the index costs in memory. */
  readonly postingCount: number;
  readonly #lengths: Uint32Array;
  // Per term: pairs of (text, count), flattened.
  readonly #postings: Map<string, Uint32Array>;

  private constructor(lengths: Uint32Array, postings: Map<string, Uint32Array>) {
    this.size = lengths.length;
    this.totalLength = lengths.reduce((sum, length) => sum + length, 0);
    this.postingCount = [...postings.values()].reduce((sum, pairs) => sum + pairs.length / 2, 0);
    this.#lengths = lengths;
    this.#postings = postings;
  }

  /**
   * The index of `texts`, text `i` being chunk `i`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Bm25Index, bm25Search } from "./bm25.ts";
   * const index = Bm25Index.build(["The secret is Svc!", "Rye bread"]);
   * assert(bm25Search([index], "What is the secret?", 10)[0]?.text === 0);
   * ```
   */
  static build(texts: readonly string[]): Bm25Index {
    const lengths = new Uint32Array(texts.length);
    const pairs = new Map<string, number[]>();
    texts.forEach((text, i) => {
      const counts = new Map<string, number>();
      for (const word of contentWords(text)) {
        const term = stem(word);
        counts.set(term, (counts.get(term) ?? 0) + 1);
        lengths[i]!++;
      }
      for (const [term, count] of counts) {
        let list = pairs.get(term);
        if (!list) pairs.set(term, list = []);
        list.push(i, count);
      }
    });
    return new Bm25Index(
      lengths,
      new Map([...pairs].map(([term, list]) => [term, Uint32Array.from(list)])),
    );
  }

  /** The texts holding a term, as pairs of (text, count). */
  postings(term: string): Uint32Array | undefined {
    return this.#postings.get(term);
  }

  /** Every term with its postings, as {@linkcode Bm25Index.postings} gives them. */
  terms(): IterableIterator<[string, Uint32Array]> {
    return this.#postings.entries();
  }

  /** The number of terms of text `i`. */
  length(i: number): number {
    return this.#lengths[i]!;
  }
}

/** A text found by {@linkcode bm25Search}: its index in the list of indexes, and its own. */
export interface Bm25Hit {
  index: number;
  text: number;
  score: number;
}

/**
 * The best `limit` texts of the indexes for a query, best first; the indexes
 * are ranked together, as one collection (document frequencies and the mean
 * length summed over them). Texts without a query term are left out; ties
 * go to the earlier index, then the earlier text, so the order is the same
 * on every run.
 */
export function bm25Search(
  indexes: readonly Bm25Index[],
  query: string,
  limit: number,
): Bm25Hit[] {
  const size = indexes.reduce((sum, index) => sum + index.size, 0);
  if (size === 0) return [];
  const meanLength = indexes.reduce((sum, index) => sum + index.totalLength, 0) / size || 1;
  const scores = indexes.map(() => new Map<number, number>());
  for (const term of new Set(queryTerms(query).map(stem))) {
    const postings = indexes.map((index) => index.postings(term));
    const frequency = postings.reduce((sum, pairs) => sum + (pairs?.length ?? 0) / 2, 0);
    if (frequency === 0) continue;
    const idf = Math.log(1 + (size - frequency + 0.5) / (frequency + 0.5));
    postings.forEach((pairs, i) => {
      if (!pairs) return;
      for (let p = 0; p < pairs.length; p += 2) {
        const text = pairs[p]!;
        const count = pairs[p + 1]!;
        const norm = K1 * (1 - B + (B * indexes[i]!.length(text)) / meanLength);
        const score = (idf * count * (K1 + 1)) / (count + norm);
        scores[i]!.set(text, (scores[i]!.get(text) ?? 0) + score);
      }
    });
  }
  const hits: Bm25Hit[] = scores.flatMap((map, index) =>
    [...map].map(([text, score]) => ({ index, text, score }))
  );
  hits.sort((a, b) => b.score - a.score || a.index - b.index || a.text - b.text);
  return hits.slice(0, limit);
}

/**
 * The words a full-text query looks for. A long prompt (a pasted page) keeps
 * its longest words, which tend to be the rarer and more telling ones, so
 * that a query costs about the same whatever its length.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { queryTerms } from "./bm25.ts";
 * assert(queryTerms("What is the secret?").join() === "secret");
 * ```
 */
export function queryTerms(text: string): string[] {
  const terms = [...new Set(contentWords(text))];
  if (terms.length <= MAX_QUERY_TERMS) return terms;
  const longest = new Set(
    [...terms].sort((a, b) => b.length - a.length).slice(0, MAX_QUERY_TERMS),
  );
  return terms.filter((term) => longest.has(term));
}
