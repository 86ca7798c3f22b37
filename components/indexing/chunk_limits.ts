/**
 * The bounds of chunking, which keep one document from filling the disk and
 * the memory: `chunk_size` from 8 to 8192 tokens, and at most 10,000 chunks
 * per document. Each bound is an environment variable, read when it is used,
 * so that the library and the server follow the same settings.
 * @module
 */
import { SvcError } from "../core/errors.ts";
import { envNumber } from "../core/env_number.ts";

/** The smallest `chunk_size`, in tokens, unless `SVC_MIN_CHUNK_SIZE` says otherwise. */
export const DEFAULT_MIN_CHUNK_SIZE = 8;

/**
 * The largest `chunk_size`, in tokens, unless `SVC_MAX_CHUNK_SIZE` says
 * otherwise: what embedding models take at once (OpenAI's take 8191 tokens).
 */
export const DEFAULT_MAX_CHUNK_SIZE = 8192;

/** The most chunks one document may make, unless `SVC_MAX_CHUNKS_PER_DOCUMENT` says otherwise. */
export const DEFAULT_MAX_CHUNKS_PER_DOCUMENT = 10_000;

/** The bounds of chunking. */
export interface ChunkLimits {
  /** The smallest `chunk_size`, in tokens. */
  minChunkSize: number;
  /** The largest `chunk_size`, in tokens. */
  maxChunkSize: number;
  /** The most chunks one document may make. */
  maxChunksPerDocument: number;
}

/**
 * The bounds of chunking from the environment: `SVC_MIN_CHUNK_SIZE` (8),
 * `SVC_MAX_CHUNK_SIZE` (8192) and `SVC_MAX_CHUNKS_PER_DOCUMENT` (10000).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chunkLimits } from "./chunk_limits.ts";
 * assert.equal(chunkLimits({ SVC_MIN_CHUNK_SIZE: "32" }).minChunkSize, 32);
 * assert.equal(chunkLimits({}).maxChunksPerDocument, 10_000);
 * ```
 *
 * @throws {SvcError} naming the variable whose value is not a positive whole
 * number, or a minimum above the maximum
 */
export function chunkLimits(env?: Record<string, string | undefined>): ChunkLimits {
  const limits = {
    minChunkSize: envNumber("SVC_MIN_CHUNK_SIZE", { fallback: DEFAULT_MIN_CHUNK_SIZE, env }),
    maxChunkSize: envNumber("SVC_MAX_CHUNK_SIZE", { fallback: DEFAULT_MAX_CHUNK_SIZE, env }),
    maxChunksPerDocument: envNumber("SVC_MAX_CHUNKS_PER_DOCUMENT", {
      fallback: DEFAULT_MAX_CHUNKS_PER_DOCUMENT,
      env,
    }),
  };
  if (limits.minChunkSize > limits.maxChunkSize) {
    throw new SvcError(
      `SVC_MIN_CHUNK_SIZE (${limits.minChunkSize}) must not be above ` +
        `SVC_MAX_CHUNK_SIZE (${limits.maxChunkSize})`,
    );
  }
  return limits;
}
