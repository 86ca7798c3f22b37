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
 * import { dropNearDuplicates } from "./_near_duplicates.ts";
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
  const threshold = options.threshold ?? 0.5;
  const kept: { source: T; triples: Set<string> }[] = [];
  for (const source of sources) {
    const triples = wordTriples(source.content);
    const repeats = kept.some((better) => {
      if (better.source.document !== source.document || triples.size === 0) return false;
      let shared = 0;
      for (const triple of triples) if (better.triples.has(triple)) shared++;
      return shared / triples.size > threshold;
    });
    if (!repeats) kept.push({ source, triples });
  }
  return kept.map(({ source }) => source);
}

function wordTriples(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length < 3) return new Set(words.length === 0 ? [] : [words.join(" ")]);
  const triples = new Set<string>();
  for (let i = 0; i + 3 <= words.length; i++) triples.add(words.slice(i, i + 3).join(" "));
  return triples;
}
