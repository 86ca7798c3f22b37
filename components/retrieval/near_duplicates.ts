/**
 * Near-duplicate passages among an answer's sources: chunks that overlap (by
 * `chunk_overlap`) or repeat one another would spend the token budget on the
 * same text twice.
 * @module
 */

/** Options of {@linkcode dropNearDuplicates}. */
export interface NearDuplicateOptions {
  /**
   * The share of a passage's word triples already in a better passage above
   * which it is dropped.
   * @default {0.5}
   */
  threshold?: number;
}

/**
 * The sources, in their order, without those whose text is mostly in a
 * better-ranked one of the same document: more than `threshold` of its word
 * triples (three words in a row, compared without case) are among that one's.
 * A passage of fewer than three words is compared by its words.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { dropNearDuplicates } from "./near_duplicates.ts";
 * const document = { id: "d" };
 * const kept = dropNearDuplicates([
 *   { document, content: "Bread needs flour, water and salt. Bake it hot." },
 *   { document, content: "Bread needs flour, water and salt." },
 *   { document, content: "Keep it in a dry place." },
 * ]);
 * assert.equal(kept.length, 2);
 * ```
 */
export function dropNearDuplicates<T extends { document: unknown; content: string }>(
  sources: readonly T[],
  options: NearDuplicateOptions = {},
): T[] {
  return sources.filter(repeatsNone(options));
}

/**
 * A check that takes a source unless it is a near duplicate (as
 * {@linkcode dropNearDuplicates} says) of one it took before; asked of the
 * sources best first, it compares each only with those taken, which an
 * answer's budget keeps few.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { repeatsNone } from "./near_duplicates.ts";
 * const take = repeatsNone();
 * assert.equal(take({ document: "d", content: "Bread needs flour and salt" }), true);
 * assert.equal(take({ document: "d", content: "bread needs flour and salt!" }), false);
 * ```
 */
export function repeatsNone<T extends { document: unknown; content: string }>(
  options: NearDuplicateOptions = {},
): (source: T) => boolean {
  const threshold = options.threshold ?? 0.5;
  // A source's triples are made only once another of its document is met:
  // over a chat of many documents, most sources are the first of theirs.
  const taken: { document: unknown; content: string; triples?: Set<Triple> }[] = [];
  const words = new Map<string, number>();
  return (source) => {
    let triples: Set<Triple> | undefined;
    const repeats = taken.some((better) => {
      if (better.document !== source.document) return false;
      triples ??= wordTriples(source.content, words);
      if (triples.size === 0) return false;
      better.triples ??= wordTriples(better.content, words);
      let shared = 0;
      for (const triple of triples) if (better.triples.has(triple)) shared++;
      return shared / triples.size > threshold;
    });
    if (!repeats) taken.push({ document: source.document, content: source.content, triples });
    return !repeats;
  };
}

/** Three words in a row, as a number while the words met are few enough, else as text. */
type Triple = number | string;

// Words numbered below 2^17 make a triple one number below 2^51, exactly.
const WORD_NUMBERS = 2 ** 17;

/**
 * The word triples of a text, each word numbered in `numbers` (the same word,
 * the same number), so that a triple is one number rather than a new string.
 */
function wordTriples(text: string, numbers: Map<string, number>): Set<Triple> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length < 3) return new Set(words.length === 0 ? [] : [words.join(" ")]);
  const ids = words.map((word) => {
    let id = numbers.get(word);
    if (id === undefined) numbers.set(word, id = numbers.size);
    return id;
  });
  const triples = new Set<Triple>();
  for (let i = 0; i + 3 <= ids.length; i++) {
    const [a, b, c] = [ids[i]!, ids[i + 1]!, ids[i + 2]!];
    triples.add(
      a < WORD_NUMBERS && b < WORD_NUMBERS && c < WORD_NUMBERS
        ? (a * WORD_NUMBERS + b) * WORD_NUMBERS + c
        : `${a} ${b} ${c}`,
    );
  }
  return triples;
}
