/**
 * The chat parameters of indexing, which every chunking source storage takes:
 * `chunk_size` (within the bounds of `chunk_limits.ts`) and `chunk_overlap`,
 * their defaults, and the rule between them. They are indexing's: an index is
 * named by them (`indexInfo()`), and chunks of other settings make another.
 * @module
 */
import { z } from "zod";
import type { ParamProblem, ParamRule, ParamSchema } from "../core/params.ts";
import { type ChunkLimits, chunkLimits } from "./chunk_limits.ts";

/** The default `chunk_size`, in tokens, when the bounds allow it. */
export const DEFAULT_CHUNK_SIZE = 500;

/**
 * The default `chunk_overlap`, in tokens. Chunks end at paragraphs and
 * sentences, and an answer's sources drop the text they repeat, so a large
 * overlap mostly makes more chunks that say the same.
 */
export const DEFAULT_CHUNK_OVERLAP = 100;

// The schema of the latest bounds: made again only when they change, since
// checking a chat's parameters at each question would otherwise make it each time.
let sizeParam: { bounds: string; schema: z.ZodType } | undefined;

/**
 * The schema of the chat parameter `chunk_size`: a whole number of tokens
 * within the bounds, 500 by default (or the nearest bound, when 500 is out of
 * them).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chunkLimits } from "./chunk_limits.ts";
 * import { chunkSizeParam } from "./chunk_params.ts";
 * const schema = chunkSizeParam(chunkLimits({ SVC_MAX_CHUNK_SIZE: "200" }));
 * assert.equal(schema.parse(undefined), 200);
 * ```
 */
export function chunkSizeParam(limits: ChunkLimits = chunkLimits()): z.ZodType {
  const { minChunkSize: min, maxChunkSize: max } = limits;
  const bounds = `${min} ${max}`;
  if (sizeParam?.bounds !== bounds) {
    const schema = z.int()
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` })
      .default(Math.min(Math.max(DEFAULT_CHUNK_SIZE, min), max));
    sizeParam = { bounds, schema };
  }
  return sizeParam.schema;
}

/** `chunk_overlap` must be below `chunk_size`: at or above it, the windows would never move on. */
export function overlapBelowSize(
  params: Readonly<Record<string, unknown>>,
): ParamProblem | undefined {
  const { chunk_size, chunk_overlap } = params as Record<string, number>;
  if (chunk_overlap! < chunk_size!) return undefined;
  return { name: "chunk_overlap", problem: `must be less than chunk_size (${chunk_size})` };
}

/** The chat parameters of chunking. */
export const CHUNK_PARAMS: ParamSchema = {
  // A getter, so that the bounds of SVC_MIN_CHUNK_SIZE and SVC_MAX_CHUNK_SIZE are read when used.
  get chunk_size() {
    return chunkSizeParam();
  },
  chunk_overlap: z.int().nonnegative().default(DEFAULT_CHUNK_OVERLAP),
};

/** The checks over several parameters of chunking. */
export const CHUNK_PARAM_RULES: readonly ParamRule[] = [overlapBelowSize];
