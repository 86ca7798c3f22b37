/**
 * What a mistyped name probably meant, for the "(did you mean ...?)" of a
 * message: config keys, class paths, commands, environment variables.
 * @module
 */

/** Options of {@linkcode closest}. */
export interface ClosestOptions {
  /**
   * The most edits a candidate may be away and still be suggested.
   * @default {2}
   */
  maxDistance?: number;
}

/**
 * The candidate fewest edits away from the word, within `maxDistance`; the
 * first one listed wins a tie.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { closest } from "./closest.ts";
 * assert(closest("chek", ["init", "check", "api", "ui"]) === "check");
 * assert(closest("serve", ["init", "check", "api", "ui"]) === undefined);
 * ```
 */
export function closest(
  word: string,
  candidates: Iterable<string>,
  { maxDistance = 2 }: ClosestOptions = {},
): string | undefined {
  let best: { candidate: string; score: number } | undefined;
  for (const candidate of candidates) {
    const score = distance(word, candidate);
    if (score <= maxDistance && (best === undefined || score < best.score)) {
      best = { candidate, score };
    }
  }
  return best?.candidate;
}

/**
 * The Levenshtein distance: how many edits (insert, delete, replace one
 * character) turn one word into the other.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { distance } from "./closest.ts";
 * assert(distance("api.prot", "api.port") === 2);
 * ```
 */
export function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
