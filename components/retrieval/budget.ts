/**
 * The token budget of retrieval: how many sources an answer gets, and the
 * chat parameter that sets it (`num_tokens`), its default and its bound,
 * since every token of it is more passages to rank, read and send.
 * @module
 */
import { z } from "zod";
import { envNumber } from "../core/env_number.ts";
import type { ParamSchema } from "../core/params.ts";

/**
 * The largest `num_tokens` unless `SVC_MAX_NUM_TOKENS` says otherwise: a
 * budget well beyond what the models svc calls take as context for sources,
 * and small enough that a chat cannot make every retrieval rank and read
 * whole documents.
 */
export const DEFAULT_MAX_NUM_TOKENS = 32_768;

/**
 * The default `num_tokens`: the tokens of passages an answer gets. About five
 * passages of the default size, so that a right passage ranked fourth or fifth
 * still reaches the model; small beside the context of the models svc calls.
 */
export const DEFAULT_NUM_TOKENS = 1536;

// The schema of the latest bound and default: made again only when they change, since
// checking a chat's parameters at each question would otherwise make it each time.
let made: { bound: string; schema: z.ZodType } | undefined;

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
  const bound = `${fallback} ${max}`;
  if (made?.bound !== bound) {
    const schema = z.int().positive()
      .max(max, { error: `must be at most ${max} (SVC_MAX_NUM_TOKENS)` })
      .default(Math.min(fallback, max));
    made = { bound, schema };
  }
  return made.schema;
}

/** The chat parameter of retrieval: `num_tokens`, the budget of an answer's sources. */
export const BUDGET_PARAMS: ParamSchema = {
  // A getter, so that the bound of SVC_MAX_NUM_TOKENS is read when used.
  get num_tokens() {
    return numTokensParam(DEFAULT_NUM_TOKENS);
  },
};

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
