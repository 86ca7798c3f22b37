/**
 * The token budget of retrieval: how many sources an answer gets.
 * @module
 */

/** Options of {@linkcode fillBudget}. */
export interface FillBudgetOptions<T> {
  /**
   * Whether to take a source that fits, asked in order of the sources that
   * fit, each once: a source it refuses is skipped and uses no tokens.
   * @default {() => true}
   */
  accept?: (source: T) => boolean;
}

/**
 * The sources, in their order, whose tokens add up to at most `numTokens`.
 * A source that would overflow the budget is skipped rather than ending the
 * walk: a smaller source further
 * down, such as the short last chunk of a document, still fits, and the
 * answer gets as much context as the budget allows. Order is kept, so the
 * best sources always come first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fillBudget } from "./_budget.ts";
 * const sources = [{ numTokens: 600 }, { numTokens: 500 }, { numTokens: 300 }];
 * assert(fillBudget(sources, 1000).length === 2); // 600 + 300
 * ```
 */
export function fillBudget<T extends { numTokens: number }>(
  sources: readonly T[],
  numTokens: number,
  options: FillBudgetOptions<T> = {},
): T[] {
  const kept: T[] = [];
  let used = 0;
  for (const source of sources) {
    if (used + source.numTokens > numTokens) continue;
    if (options.accept && !options.accept(source)) continue;
    kept.push(source);
    used += source.numTokens;
  }
  return kept;
}
