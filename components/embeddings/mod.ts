/**
 * Embedders: texts to vectors for the source storages. The default,
 * {@linkcode HashEmbedder}, works offline and is lexical, not semantic;
 * {@linkcode OpenAIEmbedder} uses any OpenAI-compatible embeddings endpoint.
 * @module
 */
import { quote, SvcError } from "../core/errors.ts";
import { envVar } from "../core/requirements.ts";
import type { Embedder } from "./embedder.ts";
import { HashEmbedder } from "./hash.ts";
import { OpenAIEmbedder } from "./openai.ts";

export type { Embedder, EmbedOptions, WorkerRecipe } from "./embedder.ts";
export { HashEmbedder } from "./hash.ts";
export type { HashEmbedderOptions } from "./hash.ts";
export { OpenAIEmbedder } from "./openai.ts";
export type { OpenAIEmbedderOptions } from "./openai.ts";

/** The environment {@linkcode embedderFromEnv} reads; `Deno.env` by default. */
export type EmbedderEnv = Readonly<Record<string, string | undefined>>;

/**
 * The embedder that the environment asks for:
 * - `SVC_EMBEDDING_MODEL` unset, `svc/hash-v1` or `svc/hash-v1-<dimension>`:
 *   {@linkcode HashEmbedder} (512 dimensions unless given), offline and lexical;
 * - `SVC_EMBEDDING_MODEL=openai/<model>`: {@linkcode OpenAIEmbedder} with
 *   `OPENAI_API_KEY` and `OPENAI_BASE_URL`, and `SVC_EMBEDDING_DIMENSION` for
 *   a model whose dimension svc does not know (or to shorten the vectors).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { embedderFromEnv } from "./mod.ts";
 * assert(embedderFromEnv({}).id === "svc/hash-v1-512");
 * const remote = embedderFromEnv({
 *   SVC_EMBEDDING_MODEL: "openai/nomic-embed-text",
 *   SVC_EMBEDDING_DIMENSION: "768",
 *   OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
 * });
 * assert(remote.id === "openai/nomic-embed-text" && remote.dimension === 768);
 * ```
 *
 * @throws {SvcError} 500 for a model or dimension svc cannot use
 */
export function embedderFromEnv(env?: EmbedderEnv): Embedder {
  const get = (name: string) => env ? env[name] : envVar(name);
  const model = get("SVC_EMBEDDING_MODEL")?.trim() || "svc/hash-v1";
  const dimensionText = get("SVC_EMBEDDING_DIMENSION")?.trim() || undefined;
  const dimension = dimensionText === undefined ? undefined : Number(dimensionText);
  if (dimension !== undefined && !(Number.isInteger(dimension) && dimension > 1)) {
    throw new SvcError(
      `SVC_EMBEDDING_DIMENSION must be an integer above 1, not ${quote(dimensionText)}`,
    );
  }

  const hash = /^svc\/hash-v1(?:-(\d+))?$/.exec(model);
  if (hash) {
    const own = hash[1] === undefined ? undefined : Number(hash[1]);
    if (own !== undefined && dimension !== undefined && own !== dimension) {
      throw new SvcError(
        `SVC_EMBEDDING_MODEL ${quote(model)} and SVC_EMBEDDING_DIMENSION ${quote(dimension)} ` +
          `disagree`,
      );
    }
    return new HashEmbedder({ dimension: own ?? dimension ?? 512 });
  }
  if (model.startsWith("openai/") && model.length > "openai/".length) {
    return new OpenAIEmbedder({
      model: model.slice("openai/".length),
      dimension,
      apiKey: get("OPENAI_API_KEY"),
      baseURL: get("OPENAI_BASE_URL"),
    });
  }
  throw new SvcError(
    `Unknown embedding model ${quote(model)} in SVC_EMBEDDING_MODEL; use "svc/hash-v1" ` +
      `(offline, lexical) or "openai/<model>" (an OpenAI-compatible endpoint)`,
  );
}
