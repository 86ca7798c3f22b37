/**
 * The token budget of retrieval: how many sources an answer gets, and the
 * bound of the chat parameter that sets it (`num_tokens`), since every token
 * of it is more passages to rank, read and send.
 * @module
 */
import { z } from "zod";
import { envNumber } from "../core/env_number.ts";

/**
 * The largest `num_tokens` unless `SVC_MAX_NUM_TOKENS` says otherwise: a
 * budget well beyond what the models svc calls take as context for sources,
 * and small enough that a chat cannot make every retrieval rank and read
 * whole documents.
 */
export const DEFAULT_MAX_NUM_TOKENS = 32_768;

/**
 * The schema of the chat parameter `num_tokens`: a positive whole number of
 * tokens up to `SVC_MAX_NUM_TOKENS` (32768), `fallback` by default.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { numTokensParam } from "./budget.ts";
 * const schema = numTokensParam(1536, {});
 * assert.equal(schema.parse(undefined), 1536);
 * assert.equal(schema.safeParse(1_000_000).error?.issues[0]?.message, "must be at most 32768 (SVC_MAX_NUM_TOKENS)");
 * ```
 *
 * @throws {SvcError} naming `SVC_MAX_NUM_TOKENS` when it is not a positive whole number
 */
export function numTokensParam(
  fallback: number,
  env?: Record<string, string | undefined>,
): z.ZodType {
  const max = envNumber("SVC_MAX_NUM_TOKENS", { fallback: DEFAULT_MAX_NUM_TOKENS, env });
  return z.int().positive()
    .max(max, { error: `must be at most ${max} (SVC_MAX_NUM_TOKENS)` })
    .default(Math.min(fallback, max));
}

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
 * import { fillBudget } from "./budget.ts";
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
