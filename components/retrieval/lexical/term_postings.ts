/**
 * BM25 computed in memory over compact postings, in one of two flavours:
 * SQLite FTS5's (`FTS5`: the `porter unicode61 remove_diacritics 2`
 * tokenizer and FTS5's `bm25()`, as the LibSQL storage ranked with an FTS5
 * table) and svc's own (`OWN_BM25`: the words and stems of `lexical/bm25.ts`, as
 * `bm25Search()` ranks). The postings of one stored document are a few typed
 * arrays, with terms as 53-bit hashes of their stems, so a chat of 100,000
 * chunks takes about 2 kB a chunk rather than a map entry per term and
 * document.
 *
 * A search ranks the chunks of the indexes it is given, and only those, as
 * one collection: the number of chunks, their mean length and each term's
 * document frequency are those of the chat's documents, so what other chats
 * and users stored changes nothing of a chat's ranking (one FTS5 table for the
 * whole database counted them all).
 * @module
 */
import { Turns } from "../../core/turns.ts";
import { contentWords, stem } from "../../text/words.ts";
import { B, K1, queryTerms } from "./bm25.ts";
import { mergedTerms } from "./chat_terms.ts";
import { porterStem } from "./porter.ts";
import { wordKey } from "../proximity.ts";
import { indexAt, Scratch, startsOf, topPositions } from "../positions.ts";

// A posting is the chunk's position times COUNTS plus the term's count in it.
// A count past COUNTS - 1 (one word 4,096 times in a chunk) is taken as that:
// BM25 has long stopped growing with the count by then.
export const COUNT_BITS = 12;
const COUNTS = 2 ** COUNT_BITS;
const MAX_CHUNKS = Math.floor(2 ** 32 / COUNTS);
// The layout of TermPostings.toBytes(), and its count of words when none were kept.
const BYTES_FORMAT = 1;
const NO_WORDS = 0xffffffff;
// As FTS5's unicode61 tokenizer with remove_diacritics: letters and digits,
// lower case, without diacritics.
const TOKEN = /[\p{L}\p{N}]+/gu;
const MARK = /\p{M}/gu;
const NON_ASCII = /[^\t\n\r -~]/;

/** How a BM25 reads texts and queries, and weighs a term. */
export interface Bm25Flavour {
  /** The words of a text, each counting in its length, before stemming. */
  words(text: string): string[];
  /** A word's term. */
  stem(word: string): string;
  /** The terms a query looks for; a term given twice counts twice. */
  queryTerms(query: string): string[];
  /** The weight of a term held by `frequency` of `size` chunks. */
  idf(size: number, frequency: number): number;
  /**
   * Whether the words of printable ASCII are its runs of letters and digits,
   * in lower case: postings then read them without making a string of each.
   */
  plainRuns?: boolean;
}

/**
 * SQLite FTS5's BM25 with the `porter unicode61 remove_diacritics 2`
 * tokenizer, for svc's query words (`queryTerms()`) OR-ed, each word a phrase.
 */
export const FTS5: Bm25Flavour = {
  words: (text) => {
    const plain = NON_ASCII.test(text) ? text.normalize("NFKD").replace(MARK, "") : text;
    return plain.toLowerCase().match(TOKEN) ?? [];
  },
  stem: porterStem,
  queryTerms: (query) => queryTerms(query).map(porterStem),
  plainRuns: true,
  idf: fts5Idf,
};

/**
 * The weight FTS5's bm25() gives a phrase found in `frequency` of `size` rows:
 * a word in more than half of them a little above nothing.
 */
export function fts5Idf(size: number, frequency: number): number {
  const idf = Math.log((size - frequency + 0.5) / (frequency + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/** svc's own BM25, as `bm25Search()` ranks: content words, light stems. */
export const OWN_BM25: Bm25Flavour = {
  words: contentWords,
  stem,
  queryTerms: (query) => [...new Set(queryTerms(query).map(stem))],
  idf: (size, frequency) => Math.log(1 + (size - frequency + 0.5) / (frequency + 0.5)),
};

/** The postings of one document's chunks: which chunk holds which term, how often. */
export class TermPostings {
  /** The number of chunks. */
  readonly size: number;
  /** The number of terms of all chunks together. */
  readonly totalLength: number;
  /** The bytes the postings take in memory. */
  readonly bytes: number;
  /** How it reads texts and queries. */
  readonly flavour: Bm25Flavour;
  // Term hashes, ascending; the postings of keys[t] are postings[starts[t]..starts[t + 1]].
  readonly #keys: Float64Array;
  readonly #starts: Uint32Array;
  readonly #postings: Uint32Array;
  readonly #lengths: Uint32Array;
  // The chunks' words as the proximity ranking reads them, end to end; none
  // when a word of the flavour's is not one of `contentWords`.
  readonly #words?: { keys: Uint32Array; starts: Uint32Array };

  private constructor(
    flavour: Bm25Flavour,
    keys: Float64Array,
    starts: Uint32Array,
    postings: Uint32Array,
    lengths: Uint32Array,
    words?: { keys: Uint32Array; starts: Uint32Array },
  ) {
    this.flavour = flavour;
    this.size = lengths.length;
    this.totalLength = lengths.reduce((sum, length) => sum + length, 0);
    this.bytes = keys.byteLength + starts.byteLength + postings.byteLength + lengths.byteLength +
      (words ? words.keys.byteLength + words.starts.byteLength : 0);
    this.#keys = keys;
    this.#starts = starts;
    this.#postings = postings;
    this.#lengths = lengths;
    this.#words = words;
  }

  /**
   * Chunk `chunk`'s words as `wordKeys()` of `proximity.ts` gives them, read
   * when the postings were built, so that the proximity ranking does not read
   * the chunk's text again; undefined when they could not be.
   */
  wordsOf(chunk: number): Uint32Array | undefined {
    const words = this.#words;
    return words?.keys.subarray(words.starts[chunk], words.starts[chunk + 1]);
  }

  /**
   * The postings of `texts`, text `i` being chunk `i`, read as `flavour`
   * (FTS5's unless given) reads them.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { FTS5, rankPostings, TermPostings } from "./term_postings.ts";
   * const texts = ["The secret is Svc!", "Rye bread", "Sourdough"];
   * const postings = await TermPostings.build(texts, FTS5);
   * assert.deepEqual(rankPostings([postings], "What is the secret?", 10).map((hit) => hit.chunk), [0]);
   * ```
   *
   * @throws {RangeError} for more chunks than a posting can number
   */
  static async build(
    texts: readonly string[],
    flavour: Bm25Flavour = FTS5,
  ): Promise<TermPostings> {
    if (texts.length > MAX_CHUNKS) {
      throw new RangeError(
        `Cannot index ${texts.length} chunks of one document: at most ${MAX_CHUNKS}`,
      );
    }
    const turns = new Turns();
    const lengths = new Uint32Array(texts.length);
    // Terms numbered in the order met: each one's key, its postings, and its
    // count in the chunk being read (a map lookup a word, not three).
    const termOf = new Map<number, number>();
    const termKeys: number[] = [];
    const lists: number[][] = [];
    const counts: number[] = [];
    const met: number[] = [];
    const known = knownWords(flavour);
    const wordKeys: number[] = [];
    const wordStarts = new Uint32Array(texts.length + 1);
    let keepsWords = true;
    const add = (seen: KnownWord, chunk: number) => {
      let term = termOf.get(seen.id);
      if (term === undefined) {
        termOf.set(seen.id, term = termKeys.length);
        termKeys.push(seen.key);
        lists.push([]);
        counts.push(0);
      }
      if (counts[term]!++ === 0) met.push(term);
      lengths[chunk]!++;
      if (seen.close >= 0) wordKeys.push(seen.close);
      else if (seen.close === MISREAD) keepsWords = false;
    };
    for (const [chunk, text] of texts.entries()) {
      // Other work gets its turn while a large document is read (see `Turns`).
      if ((chunk & 15) === 15) await turns.maybe();
      if (flavour.plainRuns && !NON_ASCII.test(text)) {
        // The runs of letters and digits, found by their hashes among the
        // words known, without a string made for each.
        const lower = text.toLowerCase();
        let start = -1;
        let hash = 0;
        for (let i = 0; i <= lower.length; i++) {
          const code = i < lower.length ? lower.charCodeAt(i) : 32;
          if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
            if (start < 0) [start, hash] = [i, FNV_OFFSET];
            hash = Math.imul(hash ^ code, FNV_PRIME);
          } else if (start >= 0) {
            add(knownRun(known, flavour, lower, start, i, hash), chunk);
            start = -1;
          }
        }
      } else {
        for (const word of flavour.words(text)) {
          add(known.words.get(word) ?? know(known, flavour, word), chunk);
        }
      }
      wordStarts[chunk + 1] = wordKeys.length;
      for (const term of met) {
        lists[term]!.push(chunk * COUNTS + Math.min(counts[term]!, COUNTS - 1));
        counts[term] = 0;
      }
      met.length = 0;
    }
    await turns.maybe();
    const order = termKeys.map((_, term) => term).sort((a, b) => termKeys[a]! - termKeys[b]!);
    const keys = Float64Array.from(order, (term) => termKeys[term]!);
    const starts = new Uint32Array(keys.length + 1);
    let total = 0;
    order.forEach((term, t) => {
      starts[t] = total;
      total += lists[term]!.length;
    });
    starts[keys.length] = total;
    const postings = new Uint32Array(total);
    order.forEach((term, t) => postings.set(lists[term]!, starts[t]));
    const words = keepsWords ? { keys: Uint32Array.from(wordKeys), starts: wordStarts } : undefined;
    return new TermPostings(flavour, keys, starts, postings, lengths, words);
  }

  /**
   * The postings as bytes, to keep beside the chunks: what
   * {@linkcode TermPostings.fromBytes} makes the same postings of again,
   * without reading the texts.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { FTS5, TermPostings } from "./term_postings.ts";
   * const postings = await TermPostings.build(["The secret is Svc!", "Rye bread"], FTS5);
   * const again = TermPostings.fromBytes(postings.toBytes(), FTS5);
   * assert.deepEqual(again.range(0), postings.range(0));
   * assert.equal(again.totalLength, postings.totalLength);
   * ```
   */
  toBytes(): Uint8Array {
    const words = this.#words;
    const header = Uint32Array.of(
      BYTES_FORMAT,
      this.#keys.length,
      this.#postings.length,
      this.size,
      words ? words.keys.length : NO_WORDS,
    );
    const arrays = [header, this.#keys, this.#starts, this.#postings, this.#lengths];
    if (words) arrays.push(words.keys, words.starts);
    const bytes = new Uint8Array(arrays.reduce((sum, array) => sum + array.byteLength, 0));
    let at = 0;
    for (const array of arrays) {
      bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
      at += array.byteLength;
    }
    return bytes;
  }

  /**
   * The postings that {@linkcode TermPostings.toBytes} gave as bytes, read in
   * `flavour`, the one they were built in.
   *
   * @throws {RangeError} for bytes that are not postings of this format
   */
  static fromBytes(bytes: Uint8Array, flavour: Bm25Flavour): TermPostings {
    let at = 0;
    const take = <T>(make: (buffer: ArrayBuffer) => T, count: number, size: number): T => {
      if (at + count * size > bytes.byteLength) throw new RangeError("The postings are cut short");
      // Copied, so that each array starts where its type needs.
      const taken = make(bytes.slice(at, at + count * size).buffer);
      at += count * size;
      return taken;
    };
    const [format, keyCount, postingCount, size, wordCount] = take(
      (buffer) => new Uint32Array(buffer),
      5,
      4,
    );
    if (format !== BYTES_FORMAT) throw new RangeError(`Postings of format ${format} are not known`);
    const keys = take((buffer) => new Float64Array(buffer), keyCount!, 8);
    const u32 = (count: number) => take((buffer) => new Uint32Array(buffer), count, 4);
    const starts = u32(keyCount! + 1);
    const postings = u32(postingCount!);
    const lengths = u32(size!);
    const words = wordCount === NO_WORDS
      ? undefined
      : { keys: u32(wordCount!), starts: u32(size! + 1) };
    if (at !== bytes.byteLength) throw new RangeError("The postings have bytes left over");
    return new TermPostings(flavour, keys, starts, postings, lengths, words);
  }

  /**
   * The postings of a chat of many indexes as one index of their chunks,
   * kept for the chats searched last; undefined for a chat of a few (see
   * `mergedTerms()`).
   */
  static merged(indexes: readonly TermPostings[]): TermPostings | undefined {
    const flavour = indexes[0]?.flavour ?? FTS5;
    return mergedTerms(
      indexes,
      COUNT_BITS,
      ({ keys, starts, postings, lengths }) =>
        new TermPostings(flavour, keys, starts, postings, lengths),
    );
  }

  /** Where the postings of a term lie in {@linkcode TermPostings.postingsOf}'s array; empty when none. */
  range(key: number): [number, number] {
    // Interpolation search: the keys are hashes, spread evenly, so a guess
    // from the key's value lands next to it, and a chat of 1,000 documents
    // looks a term up in each at a few reads of memory rather than a dozen.
    const keys = this.#keys;
    let low = 0;
    let high = keys.length - 1;
    while (low <= high && key >= keys[low]! && key <= keys[high]!) {
      const span = keys[high]! - keys[low]!;
      const guess = span === 0 ? low : low + Math.floor(((key - keys[low]!) / span) * (high - low));
      const at = Math.min(high, Math.max(low, guess));
      const found = keys[at]!;
      if (found === key) return [this.#starts[at]!, this.#starts[at + 1]!];
      if (found < key) low = at + 1;
      else high = at - 1;
    }
    return [0, 0];
  }

  /**
   * The terms' keys, ascending, and where each one's postings start in
   * {@linkcode TermPostings.postingsOf}'s array (and end: one start more).
   */
  get terms(): { keys: Float64Array; starts: Uint32Array } {
    return { keys: this.#keys, starts: this.#starts };
  }

  /** Every posting: chunk times 4096 plus count, grouped by term. */
  get postingsOf(): Uint32Array {
    return this.#postings;
  }

  /** The number of terms of each chunk. */
  get lengths(): Uint32Array {
    return this.#lengths;
  }
}

/** What building postings knows of a word: its term's key, and its proximity key. */
interface KnownWord {
  word: string;
  key: number;
  /** The key's number among those of the flavour's known words: a small integer, which maps hold unboxed. */
  id: number;
  /** Its `wordKey()`, or -1 for a word the proximity ranking skips, or {@linkcode MISREAD}. */
  close: number;
}

// A word that `contentWords()` reads otherwise than the flavour: the chunks'
// words are then not kept for the proximity ranking.
const MISREAD = -2;
// The most words known of each flavour: every word of most collections, in
// some megabytes; past it, they are forgotten and learnt again.
const KNOWN_WORDS = 200_000;
const known = new WeakMap<Bm25Flavour, KnownWords>();

/** The words known of a flavour, and the numbers of their terms' keys. */
interface KnownWords {
  words: Map<string, KnownWord>;
  /** The same words by {@linkcode wordHash}, a small integer. */
  hashed: Map<number, KnownWord[]>;
  ids: Map<number, number>;
}

// FNV-1a, 32 bits, as `wordHash()` and the plain runs of `TermPostings.build()` compute it.
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** A word's FNV-1a hash, to 30 bits: a number a map holds unboxed. */
function wordHash(word: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), FNV_PRIME);
  return hash & 0x3fffffff;
}

/** The known word `text.slice(start, end)`, whose FNV-1a hash is `hash`, learnt if new. */
function knownRun(
  known: KnownWords,
  flavour: Bm25Flavour,
  text: string,
  start: number,
  end: number,
  hash: number,
): KnownWord {
  for (const seen of known.hashed.get(hash & 0x3fffffff) ?? []) {
    if (seen.word.length === end - start && text.startsWith(seen.word, start)) return seen;
  }
  const word = text.slice(start, end);
  return known.words.get(word) ?? know(known, flavour, word);
}

/**
 * The words of a flavour met before, with their terms' keys: most words of a
 * document were in the documents read before it, and stemming them again
 * was a tenth of reading a chat's postings.
 */
function knownWords(flavour: Bm25Flavour): KnownWords {
  let words = known.get(flavour);
  // Forgotten whole, since a build under way holds the numbers it met.
  if (!words || words.words.size > KNOWN_WORDS) {
    known.set(flavour, words = { words: new Map(), hashed: new Map(), ids: new Map() });
  }
  return words;
}

function know(known: KnownWords, flavour: Bm25Flavour, word: string): KnownWord {
  const content = contentWords(word);
  const close = content.length > 1 || (content.length === 1 && content[0] !== word)
    ? MISREAD
    : content.length === 0
    ? -1
    : wordKey(stem(word));
  const key = termKey(flavour.stem(word));
  let id = known.ids.get(key);
  if (id === undefined) known.ids.set(key, id = known.ids.size);
  const seen = { word, key, id, close };
  known.words.set(word, seen);
  const hash = wordHash(word);
  const same = known.hashed.get(hash);
  if (same) same.push(seen);
  else known.hashed.set(hash, [seen]);
  return seen;
}

/** A chunk found by {@linkcode rankPostings}: its index in the list given, and its own. */
export interface PostingHit {
  index: number;
  chunk: number;
  score: number;
}

/** A query term found in the chunks searched: where its postings lie in each index, and its weight. */
interface FoundTerm {
  /** Its postings in index i are `postingsOf[bounds[2i]..bounds[2i + 1]]`. */
  bounds: Uint32Array;
  frequency: number;
  idf: number;
}

/**
 * The best `limit` chunks of the given postings (all of one flavour) for a
 * query, best first, ranked as one collection of only those chunks. Chunks
 * without a query term are left out; ties go to the earlier index, then the
 * earlier chunk.
 *
 * When the query's rare terms alone put `limit` chunks beyond what its
 * common terms could add to any other (the MaxScore bound), the common
 * terms' long postings are read only for those chunks; the scores, and so
 * the ranking, are the same as reading every posting.
 */
export function rankPostings(
  indexes: readonly TermPostings[],
  query: string,
  limit: number,
): PostingHit[] {
  // A chat of many indexes is ranked as one index of their chunks, which ranks the same.
  const merged = TermPostings.merged(indexes);
  const scoring = QueryScoring.of(merged ? [merged] : indexes, query);
  const best = scoring.bounded(limit) ?? scoring.exhaustive(limit);
  const starts = startsOf(indexes);
  return best.map(({ position, score }) => {
    const index = indexAt(starts, position);
    return { index, chunk: position - starts[index]!, score };
  });
}

/** A position among the chunks laid end to end, and its score. */
export interface Scored {
  position: number;
  score: number;
}

/** A query's BM25 over the postings of several indexes, chunks numbered end to end. */
export class QueryScoring {
  readonly #indexes: readonly TermPostings[];
  readonly #starts: Uint32Array;
  readonly #lengthWeight: number;
  /** The query's terms found, in its order; a term given twice is the same object twice. */
  readonly #terms: readonly FoundTerm[];

  private constructor(
    indexes: readonly TermPostings[],
    starts: Uint32Array,
    lengthWeight: number,
    terms: readonly FoundTerm[],
  ) {
    this.#indexes = indexes;
    this.#starts = starts;
    this.#lengthWeight = lengthWeight;
    this.#terms = terms;
  }

  /** The scoring of `query` over `indexes` (all of one flavour). */
  static of(indexes: readonly TermPostings[], query: string): QueryScoring {
    const starts = startsOf(indexes);
    const size = starts[indexes.length]!;
    const meanLength = indexes.reduce((sum, index) => sum + index.totalLength, 0) / size || 1;
    const flavour = indexes[0]?.flavour ?? FTS5;
    const found = new Map<string, FoundTerm | undefined>();
    const terms: FoundTerm[] = [];
    for (const term of size === 0 ? [] : flavour.queryTerms(query)) {
      if (!found.has(term)) {
        const key = termKey(term);
        const bounds = new Uint32Array(2 * indexes.length);
        let frequency = 0;
        indexes.forEach((index, i) => {
          const [from, to] = index.range(key);
          [bounds[2 * i], bounds[2 * i + 1]] = [from, to];
          frequency += to - from;
        });
        const idf = flavour.idf(size, frequency);
        found.set(term, frequency > 0 ? { bounds, frequency, idf } : undefined);
      }
      const known = found.get(term);
      if (known) terms.push(known);
    }
    return new QueryScoring(indexes, starts, B / meanLength, terms);
  }

  /** The best `limit` chunks, every posting of every term added up in the query's order of terms. */
  exhaustive(limit: number): Scored[] {
    const scores = queryScores.zeroed(this.#starts[this.#indexes.length]!);
    for (const term of this.#terms) this.#add(term, scores);
    return topPositions(scores, limit).map((position) => ({ position, score: scores[position]! }));
  }

  /**
   * The same as {@linkcode QueryScoring.exhaustive} when the rarest terms
   * bound it (MaxScore): the terms are added rarest first until the
   * `limit`-th best sum so far is above all that the terms left could add
   * to a chunk (a term adds less than `idf * (K1 + 1)`). Only the chunks
   * that can still reach it are then scored, in the query's order of terms,
   * so that each sum is the one `exhaustive()` makes. Undefined when the
   * bound never holds, or would save little.
   */
  bounded(limit: number): Scored[] | undefined {
    const terms = this.#terms;
    const rarestFirst = [...new Set(terms)].sort((a, b) => a.frequency - b.frequency);
    // A term the query gives twice counts twice.
    const times = (term: FoundTerm) => terms.filter((other) => other === term).length;
    let left = terms.reduce((sum, term) => sum + term.idf * (K1 + 1), 0);
    let unread = rarestFirst.reduce((sum, term) => sum + term.frequency, 0);
    const sums = queryScores.zeroed(this.#starts[this.#indexes.length]!);
    const met = new Met(sums.length);
    for (const term of rarestFirst) {
      // Worth a look only when this term's postings are many more than the chunks met.
      if (limit > 0 && met.size >= limit && term.frequency > BOUND_SAVING * met.size) {
        const floor = kthLargest(sums, met.positions, limit);
        if (floor > left * (1 + ROUNDING)) {
          const reaching: number[] = [];
          for (const position of met.positions) {
            if (sums[position]! + left >= floor * (1 - ROUNDING)) reaching.push(position);
          }
          // Scoring a chunk looks each term up: cheaper than the postings left, or go on.
          if (reaching.length * terms.length * LOOKUP_COST < unread) {
            return this.#scoredExactly(reaching, limit);
          }
        }
      }
      const count = times(term);
      this.#add(term, sums, count, met);
      left -= count * term.idf * (K1 + 1);
      unread -= term.frequency;
    }
    return undefined;
  }

  /**
   * Adds `times` a term's weight in each chunk holding it to its score; the
   * positions first given a score are added to `met`, when given.
   */
  #add(term: FoundTerm, scores: Float64Array, times = 1, met?: Met): void {
    const { bounds, idf } = term;
    for (let i = 0; i < this.#indexes.length; i++) {
      const [from, to] = [bounds[2 * i]!, bounds[2 * i + 1]!];
      if (from === to) continue;
      const { postingsOf, lengths } = this.#indexes[i]!;
      const run = { postings: postingsOf, lengths, from, to, offset: this.#starts[i]! };
      addPostings(run, scores, times * idf, this.#lengthWeight, met);
    }
  }

  /** The best `limit` of `positions`, each scored by every term as `exhaustive()` adds them. */
  #scoredExactly(positions: number[], limit: number): Scored[] {
    const lengthWeight = this.#lengthWeight;
    const scored = positions.sort((a, b) => a - b).map((position) => {
      const index = indexAt(this.#starts, position);
      const chunk = position - this.#starts[index]!;
      const { postingsOf: postings, lengths } = this.#indexes[index]!;
      const norm = K1 * (1 - B + lengths[chunk]! * lengthWeight);
      let score = 0;
      for (const { bounds, idf } of this.#terms) {
        const count = countIn(postings, bounds[2 * index]!, bounds[2 * index + 1]!, chunk);
        if (count > 0) score += (idf * count * (K1 + 1)) / (count + norm);
      }
      return { position, score };
    });
    return scored.filter(({ score }) => score > 0)
      .sort((a, b) => b.score - a.score || a.position - b.position)
      .slice(0, limit);
  }
}

// The bound is tried before a term with this many times more postings than
// the chunks met so far; sums are compared with a margin far above their rounding.
const BOUND_SAVING = 1;
// What looking a term's count up in a chunk costs, in postings read.
const LOOKUP_COST = 16;
const ROUNDING = 1e-9;

/**
 * One term's postings in one index: `postings[from..to]`, of chunks counted
 * from `offset` among those laid end to end.
 */
interface PostingRun {
  postings: Uint32Array;
  lengths: Uint32Array;
  from: number;
  to: number;
  offset: number;
}

/**
 * Adds a run's BM25 weights, the term's `idf` given, to the scores of its
 * chunks; the positions first given a score are added to `met`, when given.
 */
function addPostings(
  { postings, lengths, from, to, offset }: PostingRun,
  scores: Float64Array,
  idf: number,
  lengthWeight: number,
  met?: Met,
): void {
  for (let p = from; p < to; p++) {
    const posting = postings[p]!;
    const chunk = posting >>> COUNT_BITS;
    const count = posting & (COUNTS - 1);
    const norm = K1 * (1 - B + lengths[chunk]! * lengthWeight);
    const position = offset + chunk;
    if (met && scores[position] === 0) met.add(position);
    scores[position]! += (idf * count * (K1 + 1)) / (count + norm);
  }
}

// A query's scores, and the positions it met: it is scored from start to end
// without a pause, and keeps neither (1.2 MB over 100,000 chunks, at each question).
const queryScores = new Scratch();
let metPositions = new Int32Array(0);

/** The positions given a score so far, in the order met. */
class Met {
  readonly #positions: Int32Array;
  size = 0;

  constructor(capacity: number) {
    if (metPositions.length < capacity) metPositions = new Int32Array(capacity);
    this.#positions = metPositions;
  }

  add(position: number): void {
    this.#positions[this.size++] = position;
  }

  get positions(): Int32Array {
    return this.#positions.subarray(0, this.size);
  }
}

/** A term's count in a chunk, found in the term's postings (ascending by chunk) in `[from, to)`. */
function countIn(postings: Uint32Array, from: number, to: number, chunk: number): number {
  const first = chunk * COUNTS;
  let low = from;
  let high = to;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (postings[middle]! < first) low = middle + 1;
    else high = middle;
  }
  return low < to && postings[low]! < first + COUNTS ? postings[low]! - first : 0;
}

/** The `k`-th largest of `scores` at `positions` (at least `k` of them). */
function kthLargest(scores: Float64Array, positions: Int32Array, k: number): number {
  const values = new Float64Array(positions.length);
  for (let i = 0; i < positions.length; i++) values[i] = scores[positions[i]!]!;
  const best = topPositions(values, k, -Infinity);
  return values[best[best.length - 1]!]!;
}

/**
 * A term as a 53-bit number: two 32-bit FNV-1a hashes of its UTF-16 code
 * units with different primes, so that two terms of a vocabulary share one
 * about once in 2^53 / (vocabulary size)^2.
 */
export function termKey(term: string): number {
  let low = 0x811c9dc5;
  let high = 0x9dc5811c;
  for (let i = 0; i < term.length; i++) {
    const unit = term.charCodeAt(i);
    low = Math.imul(low ^ unit, 0x01000193);
    high = Math.imul(high ^ unit, 0x01000f93);
  }
  high ^= high >>> 15;
  high = Math.imul(high, 0x85ebca6b);
  high ^= high >>> 13;
  return (high & 0x1fffff) * 2 ** 32 + (low >>> 0);
}
