/**
 * The contract of embedders: a batch of texts in, one vector per text out.
 * @module
 */

/** Options of {@linkcode Embedder.embed}. */
export interface EmbedOptions {
  /** Aborts the request when the vectors are no longer wanted. */
  signal?: AbortSignal;
}

/**
 * Turns texts into vectors for similarity search. `id` names the model that
 * made the vectors: vectors of different ids (or dimensions) are never
 * compared, so an index records both and a change of embedder re-embeds.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Embedder } from "./embedder.ts";
 * const constant: Embedder = {
 *   id: "example/constant-2",
 *   dimension: 2,
 *   embed: (texts) => Promise.resolve(texts.map(() => new Float32Array([1, 0]))),
 * };
 * assert((await constant.embed(["a", "b"])).length === 2);
 * ```
 */
export interface Embedder {
  /** The model that makes the vectors, as `provider/model`: `svc/hash-v1-512`. */
  readonly id: string;
  /** The length of every vector. */
  readonly dimension: number;
  /** What a user should know about it, for `svc check`: where it runs, what it finds. */
  readonly description?: string;
  /**
   * How the indexing worker makes this embedder again, to embed a document's
   * chunks there, off the main thread; left out when it embeds here (an
   * embedder that calls a server does I/O, not work for a thread).
   */
  readonly workerRecipe?: WorkerRecipe;
  /** One vector of `dimension` numbers per text, in the order of `texts`. */
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
  /**
   * Why it cannot make vectors here, where its server can tell (a model the server does not
   * serve); `undefined` when nothing says so. Asked before svc serves, so that a mistyped model
   * stops the start rather than each chat's preparing.
   */
  problem?(): Promise<string | undefined>;
}

/**
 * An embedder as plain data that a message to a worker can carry: a kind
 * `rebuildEmbedder()` (`recipe.ts`) knows, with its options.
 */
export interface WorkerRecipe {
  /** `"svc/hash"`: `HashEmbedder` of the dimension. */
  readonly kind: "svc/hash";
  /** The length of every vector. */
  readonly dimension: number;
}
