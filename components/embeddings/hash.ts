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
import { contentWords, stem } from "./_words.ts";

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
    // word's weight, which keeps the per-chunk work near one map update per word.
    const wordCounts = new Map<string, WordCount>();
    // Hashes are kept as int32 keys, which maps hold without boxing them, and
    // read back as the uint32 they are.
    const pairCounts = new Map<number, number>();
    let previous: number | undefined;
    for (const word of contentWords(text)) {
      let counted = wordCounts.get(word);
      if (counted) counted.count++;
      else wordCounts.set(word, counted = { features: this.#featuresOf(word), count: 1 });
      const stemHash = counted.features.stemHash;
      if (previous !== undefined) {
        const pair = pairHash(previous, stemHash) | 0;
        pairCounts.set(pair, (pairCounts.get(pair) ?? 0) + 1);
      }
      previous = stemHash;
    }

    const vector = new Float32Array(this.dimension);
    const stemCounts = new Map<number, number>();
    for (const { features, count } of wordCounts.values()) {
      const stemKey = features.stemHash | 0;
      stemCounts.set(stemKey, (stemCounts.get(stemKey) ?? 0) + count);
      const weight = NGRAM_WEIGHT * (1 + Math.log(count));
      const slots = features.ngramSlots;
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i]!;
        if (slot > 0) vector[slot - 1]! += weight;
        else vector[-slot - 1]! -= weight;
      }
    }
    for (const [hash, count] of stemCounts) this.#addHash(vector, hash, WORD_WEIGHT, count);
    for (const [hash, count] of pairCounts) this.#addHash(vector, hash, PAIR_WEIGHT, count);
    // A text without words (empty, or only punctuation) still gets a vector
    // of length one, so that cosine distances to it are defined.
    if (wordCounts.size === 0) this.#addHash(vector, hashString("", WORD_SEED), WORD_WEIGHT, 1);

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
  // keeping; the cache is dropped whole when full, which is rare and cheap.
  #features = new Map<string, WordFeatures>();

  #featuresOf(word: string): WordFeatures {
    let features = this.#features.get(word);
    if (!features) {
      const stemmed = stem(word);
      const points = codePoints(`<${word}>`);
      const slots: number[] = [];
      for (const size of NGRAM_SIZES) {
        for (let start = 0; start + size <= points.length; start++) {
          slots.push(this.#slot(hashPoints(points, start, start + size, NGRAM_SEED)));
        }
      }
      features = {
        stemHash: hashString(stemmed, WORD_SEED),
        ngramSlots: Int32Array.from(slots),
      };
      if (this.#features.size >= WORD_CACHE_SIZE) this.#features.clear();
      this.#features.set(word, features);
    }
    return features;
  }
}

interface WordFeatures {
  stemHash: number;
  ngramSlots: Int32Array;
}

/** A word of one text: its features, and how often the text holds it. */
interface WordCount {
  features: WordFeatures;
  count: number;
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
