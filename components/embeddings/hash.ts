/**
 * The offline default embedder: signed feature hashing of words, word pairs
 * and character n-grams. It needs no model and no download, and it is
 * LEXICAL, NOT SEMANTIC: texts are near when they share words, stems and
 * spellings, not when they mean the same in other words ("car" and
 * "automobile" are unrelated to it). Use an embedding model
 * (`SVC_EMBEDDING_MODEL=openai/...`) for semantic search.
 * @module
 */
import type { Embedder, EmbedOptions, WorkerRecipe } from "./embedder.ts";
import { contentWords, stem } from "../text/words.ts";

/** Options of {@linkcode HashEmbedder}. */
export interface HashEmbedderOptions {
  /**
   * The number of buckets, and so the length of every vector.
   * @default {512}
   */
  dimension?: number;
}

// How much each kind of feature counts. Whole words say most; a pair of
// neighbouring words adds some phrase sense; the many small n-grams together
// weigh about as much as their word and make different endings and spelling
// slips of one word still meet.
const WORD_WEIGHT = 1;
const PAIR_WEIGHT = 0.7;
const NGRAM_WEIGHT = 0.25;
const NGRAM_SIZES = [3, 4, 5];

/**
 * Embeds texts by hashing their features into `dimension` buckets, each
 * feature with a sign from its hash so that collisions cancel rather than
 * pile up (the "hashing trick"). Features: word stems, pairs of neighbouring
 * words, and 3- to 5-grams of each word with boundary marks; stems and pairs
 * weighted by 1 + ln(count), n-grams by the same of their word; the vector
 * L2-normalised. The hash is FNV-1a over UTF-8 with
 * the murmur3 finaliser, so vectors are the same on every run and platform.
 *
 * Lexical, not semantic: see the module documentation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HashEmbedder } from "./hash.ts";
 * const embedder = new HashEmbedder();
 * const [a, b, c] = embedder.embedSync(["The secret is Svc!", "What is the secret?", "Rye bread"]);
 * const dot = (x: Float32Array, y: Float32Array) => x.reduce((sum, v, i) => sum + v * y[i]!, 0);
 * assert(embedder.id === "svc/hash-v1-512" && dot(a!, b!) > dot(a!, c!));
 * ```
 */
export class HashEmbedder implements Embedder {
  readonly id: string;
  readonly dimension: number;
  readonly description: string =
    "offline, lexical not semantic: finds shared words, stems and spellings, not synonyms " +
    "or paraphrases; set SVC_EMBEDDING_MODEL=openai/<model> for semantic search";
  /**
   * The indexing worker makes the same embedder again from its dimension. A
   * subclass that embeds otherwise sets this to `undefined`, so that it
   * embeds where it runs.
   */
  readonly workerRecipe: WorkerRecipe | undefined;
  readonly #mask: number;

  constructor(options: HashEmbedderOptions = {}) {
    const dimension = options.dimension ?? 512;
    if (!Number.isInteger(dimension) || dimension < 2) {
      throw new RangeError(`The dimension must be an integer of at least 2, not ${dimension}`);
    }
    this.dimension = dimension;
    this.id = `svc/hash-v1-${dimension}`;
    this.workerRecipe = { kind: "svc/hash", dimension };
    this.#mask = (dimension & (dimension - 1)) === 0 ? dimension - 1 : -1;
  }

  embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve(this.embedSync(texts));
  }

  /** {@linkcode HashEmbedder.embed}, synchronously: for workers and benchmarks. */
  embedSync(texts: readonly string[]): Float32Array[] {
    return texts.map((text) => this.#embedOne(text));
  }

  #embedOne(text: string): Float32Array {
    // Counting happens per word and per pair; a word's n-grams take their
    // word's weight, which keeps the work near one map lookup per word: its
    // number among the words met, by which its count and features are found.
    // The words are forgotten between texts only, as a text's counts are kept
    // by their numbers.
    if (this.#words.ids.size >= WORD_CACHE_SIZE) this.#words = new KnownWords();
    const words = this.#words;
    const pairs = this.#pairs.clear();
    let previous: number | undefined;
    for (const word of contentWords(text)) {
      const id = words.ids.get(word) ?? this.#know(word);
      if (words.counts[id]!++ === 0) words.touched.push(id);
      const stemHash = words.stemHashes[id]!;
      if (previous !== undefined) pairs.add(pairHash(previous, stemHash) | 0);
      previous = stemHash;
    }

    const { counts, stemCounts, touched, stemsTouched } = words;
    const vector = new Float32Array(this.dimension);
    for (const id of touched) {
      const count = counts[id]!;
      counts[id] = 0;
      const stem = words.stems[id]!;
      if (stemCounts[stem] === 0) stemsTouched.push(stem);
      stemCounts[stem]! += count;
      const weight = NGRAM_WEIGHT * (1 + Math.log(count));
      const slots = words.ngramSlots[id]!;
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i]!;
        if (slot > 0) vector[slot - 1]! += weight;
        else vector[-slot - 1]! -= weight;
      }
    }
    for (const stem of stemsTouched) {
      this.#addHash(vector, words.hashOfStem[stem]!, WORD_WEIGHT, stemCounts[stem]!);
      stemCounts[stem] = 0;
    }
    pairs.forEach((hash, count) => this.#addHash(vector, hash, PAIR_WEIGHT, count));
    // A text without words (empty, or only punctuation) still gets a vector
    // of length one, so that cosine distances to it are defined.
    if (touched.length === 0) this.#addHash(vector, hashString("", WORD_SEED), WORD_WEIGHT, 1);
    touched.length = 0;
    stemsTouched.length = 0;

    let norm = 0;
    for (const value of vector) norm += value * value;
    norm = Math.sqrt(norm);
    // Signed features can cancel out exactly; a fixed unit vector keeps the
    // vector's length one all the same.
    if (norm === 0) vector[0] = norm = 1;
    for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
    return vector;
  }

  #addHash(vector: Float32Array, hash: number, weight: number, count: number): void {
    const slot = this.#slot(hash >>> 0);
    const value = weight * (1 + Math.log(count));
    if (slot > 0) vector[slot - 1]! += value;
    else vector[-slot - 1]! -= value;
  }

  /** The bucket of a hash plus one, negative for a negative sign. */
  #slot(hash: number): number {
    const bucket = this.#mask >= 0 ? hash & this.#mask : hash % this.dimension;
    return hash >>> 31 === 1 ? -(bucket + 1) : bucket + 1;
  }

  // Words repeat across chunks, so their stems and n-gram buckets are worth
  // keeping; they are dropped whole when too many, which is rare and cheap.
  #words = new KnownWords();
  #pairs = new PairCounts();

  /** Numbers a word not met before, with its stem's hash and its n-grams' buckets. */
  #know(word: string): number {
    const words = this.#words;
    const points = codePoints(`<${word}>`);
    const slots: number[] = [];
    for (const size of NGRAM_SIZES) {
      for (let start = 0; start + size <= points.length; start++) {
        slots.push(this.#slot(hashPoints(points, start, start + size, NGRAM_SEED)));
      }
    }
    const id = words.ids.size;
    const stemHash = hashString(stem(word), WORD_SEED);
    // Stems are counted by their hash, as two stems of one hash are the same feature.
    let stemOf = words.stemIds.get(stemHash | 0);
    if (stemOf === undefined) {
      words.stemIds.set(stemHash | 0, stemOf = words.hashOfStem.length);
      words.hashOfStem.push(stemHash);
    }
    words.room(id + 1);
    words.ids.set(word, id);
    words.stemHashes.push(stemHash);
    words.stems.push(stemOf);
    words.ngramSlots.push(Int32Array.from(slots));
    return id;
  }
}

/**
 * The words an embedder met, numbered in the order met, with what it needs
 * of each, and the counts of one text's words and stems by their numbers
 * (zero between texts), with the numbers it met in order.
 */
class KnownWords {
  readonly ids = new Map<string, number>();
  readonly stemHashes: number[] = [];
  /** Each word's stem, numbered by its hash. */
  readonly stems: number[] = [];
  readonly ngramSlots: Int32Array[] = [];
  readonly stemIds = new Map<number, number>();
  readonly hashOfStem: number[] = [];
  counts = new Int32Array(1024);
  stemCounts = new Int32Array(1024);
  readonly touched: number[] = [];
  readonly stemsTouched: number[] = [];

  /** Makes room for the counts of `words` words (and so as many stems at most). */
  room(words: number): void {
    if (words <= this.counts.length) return;
    const grown = (counts: Int32Array) => {
      const more = new Int32Array(2 * counts.length);
      more.set(counts);
      return more;
    };
    [this.counts, this.stemCounts] = [grown(this.counts), grown(this.stemCounts)];
  }
}

/**
 * The counts of one text's word pairs by their hashes, in the order first met:
 * a table of open addressing kept from text to text, its slots of earlier
 * texts told apart by the text's number.
 */
export class PairCounts {
  #hashes = new Int32Array(1024);
  #counts = new Int32Array(1024);
  #texts = new Int32Array(1024);
  #text: number;
  #order: number[] = [];

  /** `text`: the number of the text before the first (another than 0 for tests). */
  constructor(text = 0) {
    this.#text = text;
  }

  /** Begins the next text, with no pair counted. */
  clear(): this {
    // Numbers past the largest int32 would not be kept as they are: the slots are cleared then.
    if (this.#text === 0x7fffffff) {
      [this.#text, this.#texts] = [0, new Int32Array(this.#texts.length)];
    }
    this.#text++;
    this.#order.length = 0;
    return this;
  }

  /** Counts a pair of the text by its hash (as int32). */
  add(hash: number): void {
    if (2 * (this.#order.length + 1) > this.#hashes.length) this.#grow();
    const mask = this.#hashes.length - 1;
    let slot = hash & mask;
    while (this.#texts[slot] === this.#text) {
      if (this.#hashes[slot] === hash) {
        this.#counts[slot]!++;
        return;
      }
      slot = (slot + 1) & mask;
    }
    this.#texts[slot] = this.#text;
    this.#hashes[slot] = hash;
    this.#counts[slot] = 1;
    this.#order.push(slot);
  }

  /** Calls `visit` with each pair's hash (as uint32) and count, in the order first met. */
  forEach(visit: (hash: number, count: number) => void): void {
    for (const slot of this.#order) visit(this.#hashes[slot]! >>> 0, this.#counts[slot]!);
  }

  #grow(): void {
    const old = { hashes: this.#hashes, counts: this.#counts, order: this.#order };
    const size = 2 * this.#hashes.length;
    [this.#hashes, this.#counts, this.#texts] = [
      new Int32Array(size),
      new Int32Array(size),
      new Int32Array(size),
    ];
    this.#order = [];
    const mask = size - 1;
    for (const from of old.order) {
      let slot = old.hashes[from]! & mask;
      while (this.#texts[slot] === this.#text) slot = (slot + 1) & mask;
      this.#texts[slot] = this.#text;
      this.#hashes[slot] = old.hashes[from]!;
      this.#counts[slot] = old.counts[from]!;
      this.#order.push(slot);
    }
  }
}

const WORD_CACHE_SIZE = 100_000;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
// Each kind of feature hashes from its own seed, so the word "ab" and the
// n-gram "ab" land in unrelated buckets.
const WORD_SEED = hashString("word", FNV_OFFSET, false);
const PAIR_SEED = hashString("pair", FNV_OFFSET, false);
const NGRAM_SEED = hashString("ngram", FNV_OFFSET, false);

function codePoints(text: string): number[] {
  const points: number[] = [];
  for (const char of text) points.push(char.codePointAt(0)!);
  return points;
}

function hashString(text: string, seed: number, mix = true): number {
  const points = codePoints(text);
  return hashPoints(points, 0, points.length, seed, mix);
}

/** The hash of a pair of stems, in order: FNV-1a over their hashes' bytes. */
function pairHash(first: number, second: number): number {
  // Written out, as this runs once for every word of every chunk.
  let hash = PAIR_SEED;
  hash = Math.imul(hash ^ (first & 0xff), FNV_PRIME);
  hash = Math.imul(hash ^ ((first >>> 8) & 0xff), FNV_PRIME);
  hash = Math.imul(hash ^ ((first >>> 16) & 0xff), FNV_PRIME);
  hash = Math.imul(hash ^ (first >>> 24), FNV_PRIME);
  hash = Math.imul(hash ^ (second & 0xff), FNV_PRIME);
  hash = Math.imul(hash ^ ((second >>> 8) & 0xff), FNV_PRIME);
  hash = Math.imul(hash ^ ((second >>> 16) & 0xff), FNV_PRIME);
  hash = Math.imul(hash ^ (second >>> 24), FNV_PRIME);
  return finalize(hash);
}

/** FNV-1a over the UTF-8 bytes of `points[start..end)`, then the murmur3 finaliser. */
function hashPoints(points: number[], start: number, end: number, seed: number, mix = true) {
  let hash = seed;
  for (let i = start; i < end; i++) {
    const point = points[i]!;
    if (point < 0x80) hash = Math.imul(hash ^ point, FNV_PRIME);
    else {
      for (const value of utf8(point)) hash = Math.imul(hash ^ value, FNV_PRIME);
    }
  }
  return mix ? finalize(hash) : hash >>> 0;
}

function utf8(point: number): number[] {
  if (point < 0x800) return [0xc0 | (point >> 6), 0x80 | (point & 0x3f)];
  if (point < 0x10000) {
    return [0xe0 | (point >> 12), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f)];
  }
  return [
    0xf0 | (point >> 18),
    0x80 | ((point >> 12) & 0x3f),
    0x80 | ((point >> 6) & 0x3f),
    0x80 | (point & 0x3f),
  ];
}

/** The murmur3 finaliser: spreads every input bit over the whole hash. */
function finalize(hash: number): number {
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
