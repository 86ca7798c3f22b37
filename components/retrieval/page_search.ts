/**
 * The page arm of retrieval: the chat's pages ranked by full-text search, and
 * each candidate passage ranked by the best of its pages. A passage is a few
 * paragraphs; its page also holds the words around them (the section's
 * heading, the sentence before, the example after), which a question often
 * shares with the page and not with the passage. Ranking passages alone and
 * pages alone each miss what the other finds; fused, they find both.
 *
 * A page's text is its document's name (a question may name the document it
 * asks about) and the text of the chunks stored on it (a chunk over two pages
 * counts for both; a document without pages is one page), read from the
 * index backend once per set of indexes and kept in memory, within a bound:
 * indexes never change under their key, so nothing kept goes stale. A set of
 * indexes too large to read and index in about a second (more than
 * `maxSetChars` characters, some 3,000 passages) is searched without its pages.
 * A set whose letters and digits are all ASCII is kept as postings too, and
 * ranked in memory by FTS5's bm25() computed as FTS5 computes it: the same
 * pages in the same order, without reading every place of the question's
 * words, which took FTS5 about 2 ms a question over 1,000 passages.
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { StoredChunk } from "../indexing/mod.ts";
import { topPositions } from "./positions.ts";
import { porterStem } from "./lexical/porter.ts";
import { B, K1 } from "./lexical/bm25.ts";
import {
  type Bm25Flavour,
  COUNT_BITS,
  fts5Idf,
  termKey,
  TermPostings,
} from "./lexical/term_postings.ts";

/** Options of {@linkcode PageSearch}. */
export interface PageSearchOptions {
  /**
   * The most characters of page text kept in memory, over every set of
   * indexes searched lately; the set searched last is always kept.
   * @default {32 * 1024 * 1024}
   */
  maxChars?: number;
  /**
   * The most characters of page text of one set of indexes: a larger set is
   * ranked without its pages.
   * @default {4 * 1024 * 1024}
   */
  maxSetChars?: number;
  /**
   * Whether pages whose letters and digits are all ASCII are also kept as
   * postings and ranked in memory, as FTS5 ranks them; else FTS5 ranks every
   * question.
   * @default {true}
   */
  inMemory?: boolean;
}

/** How many pages deep a page ranking goes: far past any budget's sources. */
const PAGE_DEPTH = 200;
/** Characters of page text indexed between two turns of the event loop: a few milliseconds. */
const YIELD_CHARS = 64 * 1024;
/** The most words of a question searched for: a follow-up carries the questions before it. */
const MAX_QUERY_WORDS = 64;

/** An index searched: its key, and the name of the document it holds. */
export interface Index {
  key: string;
  name: string;
}

interface Pages {
  /** None when the set was too large to index. */
  database?: DatabaseSync;
  /** The search of `database`, prepared once. */
  search?: StatementSync;
  /** The pages' postings, in the order of the table's rows, when their words are all ASCII. */
  postings?: TermPostings;
  /** The pages' ids, in the order of the table's rows. */
  ids: string[];
  chars: number;
}

/**
 * Full-text search over the pages of sets of indexes: BM25 over whole pages
 * (SQLite FTS5 with the porter stemmer), the question's words OR-ed, the
 * search the page baseline of `svc eval` is. A set of indexes is searched as
 * one collection, with the statistics of its pages alone, so that other
 * chats' documents never change a chat's ranking.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pageId, PageSearch } from "./page_search.ts";
 * const chunk = (ordinal: number, page: number, text: string) =>
 *   ({ key: "k", ordinal, text, pageNumbers: [page], numTokens: 8 });
 * const stored = [chunk(0, 1, "Bread keeps for days."), chunk(1, 2, "Freezing bread keeps it fresh.")];
 * const search = new PageSearch();
 * const indexes = [{ key: "k", name: "kitchen.pdf" }];
 * const ranks = await search.rank(indexes, "How do I freeze bread?", async () => stored);
 * assert.deepEqual([...ranks], [[pageId("k", 2), 0], [pageId("k", 1), 1]]);
 * search.close();
 * ```
 */
export class PageSearch {
  readonly #maxChars: number;
  readonly #maxSetChars: number;
  readonly #inMemory: boolean;
  // Most recently used last.
  readonly #sets = new Map<string, Promise<Pages>>();
  readonly #chars = new Map<string, number>();
  readonly #setsOf = new WeakMap<readonly Index[], { sorted: readonly Index[]; id: string }>();

  constructor(options: PageSearchOptions = {}) {
    this.#maxChars = options.maxChars ?? 32 * 1024 * 1024;
    this.#maxSetChars = options.maxSetChars ?? 4 * 1024 * 1024;
    this.#inMemory = options.inMemory ?? true;
  }

  /**
   * The pages of the indexes (each under its key, of a document of that name)
   * that hold a word of `text`, best first, as a map from {@linkcode pageId}
   * to rank (from 0). `load` reads an index's chunks when its pages are not in
   * memory.
   */
  async rank(
    indexes: readonly Index[],
    text: string,
    load: (key: string) => Promise<readonly StoredChunk[]>,
  ): Promise<Map<string, number>> {
    const ranks = new Map<string, number>();
    const words = (text.match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_QUERY_WORDS);
    if (words.length === 0 || indexes.length === 0) return ranks;
    const { search, postings, ids } = await this.#pages(this.#setOf(indexes), load);
    if (!search) return ranks;
    const found = postings && words.every((word) => PLAIN_WORD.test(word))
      ? rankPlain(postings, words, PAGE_DEPTH)
      : undefined;
    if (found) {
      found.forEach((row, rank) => ranks.set(ids[row]!, rank));
      return ranks;
    }
    const rows = search.all(words.map((word) => `"${word}"`).join(" OR "), PAGE_DEPTH);
    rows.forEach((row, rank) => ranks.set(String(row.page), rank));
    return ranks;
  }

  /** Closes every page database kept. */
  close(): void {
    for (const pages of this.#sets.values()) {
      pages.then(({ database }) => database?.close(), () => {});
    }
    this.#sets.clear();
    this.#chars.clear();
  }

  /**
   * The set of pages of `indexes`: sorted, and named by them. Made once for
   * a list given again (a chat asked again gives the same): 1,000 documents
   * took 1 ms to sort and name.
   */
  #setOf(indexes: readonly Index[]): { sorted: readonly Index[]; id: string } {
    let set = this.#setsOf.get(indexes);
    if (!set) {
      const sorted = [...indexes].sort((a, b) =>
        a.key.localeCompare(b.key) || a.name.localeCompare(b.name)
      );
      set = { sorted, id: JSON.stringify(sorted.map(({ key, name }) => [key, name])) };
      this.#setsOf.set(indexes, set);
    }
    return set;
  }

  #pages(
    { sorted: indexes, id }: { sorted: readonly Index[]; id: string },
    load: (key: string) => Promise<readonly StoredChunk[]>,
  ): Promise<Pages> {
    let pages = this.#sets.get(id);
    if (pages) {
      this.#sets.delete(id);
    } else {
      pages = build(indexes, load, this.#maxSetChars, this.#inMemory);
      // A failed read is not kept: the next question reads again.
      pages.then((built) => this.#kept(id, built.chars), () => this.#forget(id));
    }
    this.#sets.set(id, pages);
    return pages;
  }

  #kept(id: string, chars: number): void {
    this.#chars.set(id, chars);
    let total = [...this.#chars.values()].reduce((sum, each) => sum + each, 0);
    for (const [oldest, each] of this.#chars) {
      if (total <= this.#maxChars || oldest === id) break;
      total -= each;
      this.#forget(oldest);
    }
  }

  #forget(id: string): void {
    const pages = this.#sets.get(id);
    this.#sets.delete(id);
    this.#chars.delete(id);
    pages?.then(({ database }) => database?.close(), () => {});
  }
}

/** The id of a page of an index in a page ranking; a document without pages has one, "". */
export function pageId(key: string, page: number | ""): string {
  return `${key}:${page}`;
}

/** The ids of the pages a chunk lies on. */
export function pageIdsOf(chunk: Pick<StoredChunk, "key" | "pageNumbers">): string[] {
  return chunk.pageNumbers.length === 0
    ? [pageId(chunk.key, "")]
    : chunk.pageNumbers.map((page) => pageId(chunk.key, page));
}

/**
 * The candidates that lie on a ranked page, by the best rank of their pages;
 * ties keep the candidates' order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pageId, rankByPages } from "./page_search.ts";
 * const a = { key: "k", pageNumbers: [1] }, b = { key: "k", pageNumbers: [2, 3] };
 * const ranks = new Map([[pageId("k", 3), 0], [pageId("k", 1), 1]]);
 * assert.deepEqual(rankByPages([a, b], ranks), [b, a]);
 * ```
 */
export function rankByPages<T extends Pick<StoredChunk, "key" | "pageNumbers">>(
  candidates: readonly T[],
  ranks: ReadonlyMap<string, number>,
): T[] {
  return candidates
    .map((candidate, index) => ({
      candidate,
      index,
      rank: Math.min(...pageIdsOf(candidate).map((id) => ranks.get(id) ?? Infinity)),
    }))
    .filter(({ rank }) => rank !== Infinity)
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ candidate }) => candidate);
}

async function build(
  indexes: readonly Index[],
  load: (key: string) => Promise<readonly StoredChunk[]>,
  maxChars: number,
  inMemory: boolean,
): Promise<Pages> {
  const texts = new Map<string, string[]>();
  let chars = 0;
  for (const { key, name } of indexes) {
    // "semver-guide.pptx" as "semver guide"
    const title = name.replace(/\.[^.]*$/, "").replace(/[-_.]+/g, " ");
    for (const chunk of await load(key)) {
      chars += chunk.text.length;
      // Kept, so that the next question does not read it all again.
      if (chars > maxChars) return { chars: 0, ids: [] };
      for (const id of pageIdsOf(chunk)) {
        let parts = texts.get(id);
        if (!parts) texts.set(id, parts = [title]);
        parts.push(chunk.text);
      }
    }
  }
  const database = new DatabaseSync(":memory:");
  try {
    database.exec(
      "CREATE VIRTUAL TABLE pages USING fts5(text, page UNINDEXED, tokenize = 'porter unicode61')",
    );
    const insert = database.prepare("INSERT INTO pages (text, page) VALUES (?, ?)");
    database.exec("BEGIN");
    let since = 0;
    const joined: string[] = [];
    for (const [id, parts] of texts) {
      const text = parts.join("\n\n");
      joined.push(text);
      insert.run(text, id);
      // Other requests get their turn between slices of a large set.
      if ((since += text.length) > YIELD_CHARS) {
        since = 0;
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    }
    database.exec("COMMIT");
    const search = database.prepare(
      "SELECT page FROM pages WHERE pages MATCH ? ORDER BY bm25(pages), rowid LIMIT ?",
    );
    const plain = inMemory && !joined.some((text) => UNPLAIN.test(text));
    const postings = plain ? await TermPostings.build(joined, PLAIN) : undefined;
    return { database, search, postings, ids: [...texts.keys()], chars };
  } catch (error) {
    database.close();
    throw error;
  }
}

// A letter, digit or mark beyond ASCII, which SQLite's unicode61 tokenizer
// reads by tables of its own: a page that holds one is ranked by FTS5 alone.
// Every other character beyond ASCII (punctuation, spaces, symbols) separates
// words there, as here.
const UNPLAIN = /(?![A-Za-z0-9])[\p{L}\p{N}\p{M}\p{Co}]/u;
// A question's word that the postings can look up.
const PLAIN_WORD = /^[A-Za-z0-9]+$/;

/** The words of the page table's `porter unicode61` tokenizer, for text of plain letters and digits. */
const PLAIN: Bm25Flavour = {
  words: (text) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [],
  stem: porterStem,
  queryTerms: (query) => PLAIN.words(query).map(porterStem),
  idf: fts5Idf,
};

/**
 * The best `depth` pages for the question's words (each a phrase, OR-ed), as
 * the page table's `ORDER BY bm25(pages), rowid` gives them: FTS5's bm25(),
 * computed phrase by phrase in the question's order, as FTS5 sums it, so that
 * the scores are the same to the last bit. Undefined when a page holds a word
 * more often than a posting counts: FTS5 then ranks.
 */
function rankPlain(postings: TermPostings, words: readonly string[], depth: number) {
  const size = postings.size;
  const meanLength = postings.totalLength / size;
  const lengths = postings.lengths;
  const all = postings.postingsOf;
  const scores = new Float64Array(size);
  for (const word of words) {
    const [from, to] = postings.range(termKey(porterStem(word.toLowerCase())));
    if (from === to) continue;
    const idf = fts5Idf(size, to - from);
    for (let p = from; p < to; p++) {
      const posting = all[p]!;
      const row = posting >>> COUNT_BITS;
      const count = posting & (2 ** COUNT_BITS - 1);
      if (count === 2 ** COUNT_BITS - 1) return undefined;
      scores[row]! += idf *
        ((count * (K1 + 1)) / (count + K1 * (1 - B + (B * lengths[row]!) / meanLength)));
    }
  }
  return topPositions(scores, depth);
}
