/**
 * Embedders made again from the recipe they declare (`Embedder.workerRecipe`):
 * how the indexing worker gets an embedder of its own.
 * @module
 */
import type { Embedder, WorkerRecipe } from "./embedder.ts";
import { HashEmbedder } from "./hash.ts";

/**
 * The embedder a recipe describes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HashEmbedder } from "./hash.ts";
 * import { rebuildEmbedder } from "./recipe.ts";
 * const original = new HashEmbedder({ dimension: 64 });
 * const rebuilt = rebuildEmbedder(original.workerRecipe!);
 * assert.equal(rebuilt.id, original.id);
 * assert.deepEqual(await rebuilt.embed(["rye bread"]), original.embedSync(["rye bread"]));
 * ```
 */
export function rebuildEmbedder(recipe: WorkerRecipe): Embedder {
  switch (recipe.kind) {
    case "svc/hash":
      return new HashEmbedder({ dimension: recipe.dimension });
  }
}
