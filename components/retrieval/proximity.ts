/**
 * The proximity arm of retrieval: a passage where the question's words stand
 * close together, as in a sentence that answers it, ranks above one where
 * they are scattered. Full-text search and the lexical vectors count a
 * passage's words wherever they stand, so this adds what they do not see,
 * rather than repeating them.
 * @module
 */
import { contentWords, stem } from "../text/words.ts";

/** A passage with its words as a search keeps them, when it does. */
export interface WordsKept {
  /** The passage's {@linkcode wordKeys}. */
  words?: Uint32Array;
}

/** Options of {@linkcode proximityRanking}. */
export interface ProximityOptions<T> {
  /**
   * The width of the window, in words (stop words not counted): about a clause.
   * @default {10}
   */
  width?: number;
  /**
   * A candidate's words as the search keeps them ({@linkcode wordKeys}), when
   * it does: each word's {@linkcode wordKey}, so that the candidate's text is
   * not read again at each question; a candidate without them is read.
   * @default {() => undefined}
   */
  wordsOf?: (candidate: T) => Uint32Array | undefined;
}

/**
 * The candidates ranked by their best window of `width` words: the sum of
 * the weights of the distinct question words in it, a word weighing
 * ln(1 + N / n) when n of the N candidates hold it, so that a rare word counts
 * more than one every candidate has. Candidates without a question word are
 * left out, and a question of fewer than two words gives no ranking, since a
 * single word has no neighbours. Ties keep the candidates' order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { proximityRanking } from "./proximity.ts";
 * const scattered = { content: "Bread is sold here. Far away, in another shop, they freeze fish." };
 * const close = { content: "To freeze bread, wrap it in foil." };
 * const ranked = proximityRanking([scattered, close], "How do I freeze bread?", { width: 4 });
 * assert.deepEqual(ranked, [close, scattered]);
 * ```
 */
export function proximityRanking<T extends { content: string }>(
  candidates: readonly T[],
  prompt: string,
  options: ProximityOptions<T> = {},
): T[] {
  const width = options.width ?? 10;
  const asked = new Set(contentWords(prompt).map(stem));
  if (asked.size < 2) return [];
  // Looked through rather than looked up: a question has few words, and a map
  // of keys past 2^30 hashes each of a candidate's words as a boxed number.
  const askedWords = [...asked];
  const askedKeys = Uint32Array.from(askedWords, wordKey);
  // Each candidate's question words, with their positions among its words.
  const hits = candidates.map((candidate) => {
    const keys = options.wordsOf?.(candidate);
    if (!keys) {
      return contentWords(candidate.content).map((word, position) => ({
        word: stem(word),
        position,
      }))
        .filter(({ word }) => asked.has(word));
    }
    const found: { word: string; position: number }[] = [];
    for (let position = 0; position < keys.length; position++) {
      const key = keys[position]!;
      for (let a = 0; a < askedKeys.length; a++) {
        if (askedKeys[a] === key) {
          found.push({ word: askedWords[a]!, position });
          break;
        }
      }
    }
    return found;
  });
  const holding = new Map<string, number>();
  for (const found of hits) {
    for (const word of new Set(found.map(({ word }) => word))) {
      holding.set(word, (holding.get(word) ?? 0) + 1);
    }
  }
  const weight = (word: string) => Math.log(1 + candidates.length / holding.get(word)!);
  const scored = hits.map((found, index) => {
    let best = 0;
    for (let first = 0; first < found.length; first++) {
      const seen = new Set<string>();
      let score = 0;
      for (
        let last = first;
        last < found.length && found[last]!.position - found[first]!.position < width;
        last++
      ) {
        const { word } = found[last]!;
        if (seen.has(word)) continue;
        seen.add(word);
        score += weight(word);
      }
      best = Math.max(best, score);
    }
    return { candidate: candidates[index]!, best, index };
  });
  return scored.filter(({ best }) => best > 0)
    .sort((a, b) => b.best - a.best || a.index - b.index)
    .map(({ candidate }) => candidate);
}

/**
 * A passage's words as {@linkcode proximityRanking} reads them, each as its
 * {@linkcode wordKey}: what a search keeps of a passage for this ranking,
 * 4 bytes a word rather than its text, read again at every question.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { proximityRanking, wordKeys } from "./proximity.ts";
 * const close = { content: "To freeze bread, wrap it in foil." };
 * const scattered = { content: "Bread is sold here. Far away, in another shop, they freeze fish." };
 * const keys = new Map([close, scattered].map((passage) => [passage, wordKeys(passage.content)]));
 * const ranked = proximityRanking([scattered, close], "How do I freeze bread?", {
 *   width: 4,
 *   wordsOf: (passage) => keys.get(passage),
 * });
 * assert.deepEqual(ranked, [close, scattered]);
 * ```
 */
export function wordKeys(text: string): Uint32Array {
  return Uint32Array.from(contentWords(text), (word) => wordKey(stem(word)));
}

/**
 * A word's stem as 32 bits (FNV-1a, mixed), as a search keeps it for
 * {@linkcode proximityRanking}. Two of a question's few words and a passage's
 * other words share one about once in 2^32 / (words of the question):
 * the cost of not keeping the text.
 */
export function wordKey(word: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash >>> 0;
}
