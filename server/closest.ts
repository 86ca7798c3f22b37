/**
 * What a mistyped name probably meant, for the "(did you mean ...?)" of a
 * message: config keys, class paths, commands, environment variables.
 * @module
 */
import { closest as nearest, distance } from "fastest-levenshtein";

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
  const list = [...candidates];
  if (list.length === 0) return undefined;
  const best = nearest(word, list);
  return distance(word, best) <= maxDistance ? best : undefined;
}
