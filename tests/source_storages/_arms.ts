/**
 * Checks of the arms of a chunking storage that searches a chat's documents
 * alone: the full-text arm is ranked over the chat's chunks only, and the
 * vector arm is the exact scan's ranking of the chat's stored vectors.
 * @module
 */
import assert from "node:assert/strict";
import { LocalDocument } from "../../components/core/document.ts";
import { HashEmbedder } from "../../components/embeddings/hash.ts";
import type { IndexedSourceStorage } from "../../components/retrieval/indexed_storage.ts";
import { writeFile } from "../test_utils.ts";
import { chatParams } from "./_helpers.ts";

/**
 * Checks that words of another user's documents change nothing of a chat's
 * full-text ranking, which ranked together with them would change: a word in
 * all of theirs would be common, and the chat's other word would come first.
 * `again` is a storage opened anew on the same data.
 */
export async function assertTextArmKeepsToChat(
  folder: string,
  storage: IndexedSourceStorage,
  again?: IndexedSourceStorage,
): Promise<void> {
  const spices = LocalDocument.fromPath(
    await writeFile(
      folder,
      "spices.md",
      "# Winter\n\nThe winter loaf holds cardamom, cardamom and cardamom.\n\n" +
        "# Summer\n\nThe summer loaf holds saffron.\n",
    ),
    { id: "spices" },
  );
  const params = chatParams("spices", { chunk_size: 20, chunk_overlap: 0 });
  const textArm = async (searching: IndexedSourceStorage) => {
    const { arms } = await searching.rankings([spices], "cardamom or saffron?", params);
    return arms[0]!.map((source) => source.content);
  };
  const alone = await textArm(storage);
  assert.equal(alone.length, 2, JSON.stringify(alone));
  assert.match(alone[0]!, /cardamom/);

  const cardamom = Array.from({ length: 40 }, (_, i) => `Cardamom note ${i}.`).join("\n\n");
  const other = LocalDocument.fromPath(await writeFile(folder, "other.md", cardamom));
  await storage.store([other], {
    ...chatParams("other", { chunk_size: 12, chunk_overlap: 0 }),
    user: "bob",
  });
  assert.deepEqual(await textArm(storage), alone);
  if (again) assert.deepEqual(await textArm(again), alone);
}

/** A stored chunk's vector, with the id its source has and a number that breaks ties. */
export interface StoredVector {
  id: string;
  tie: number;
  vector: Float32Array;
}

/**
 * Checks the storage's vector arm for `question` against an exact scan of the
 * chat's stored vectors: the same ranking, but for the order of chunks whose
 * distances differ only by rounding.
 */
export async function assertVectorArmExact(
  storage: IndexedSourceStorage,
  chat: { documents: LocalDocument[]; params: Parameters<IndexedSourceStorage["rankings"]>[2] },
  question: string,
  stored: readonly StoredVector[],
): Promise<void> {
  const [query] = new HashEmbedder().embedSync([question]);
  const exact = stored.map(({ id, tie, vector }) => {
    let dot = 0, norm = 0;
    vector.forEach((value, i) => (dot += value * query![i]!, norm += value * value));
    return { id, tie, distance: 1 - dot / Math.sqrt(norm) };
  }).sort((a, b) => a.distance - b.distance || a.tie - b.tie);
  const { arms } = await storage.rankings(chat.documents, question, chat.params);
  const found = arms.at(-1)!.map((source) => source.id);
  // As many as the arm ranks: the chunks of twice the budget's tokens, at least 100.
  const chunkSize = Number(chat.params.chunk_size ?? 500);
  assert.equal(found.length, Math.min(stored.length, Math.max(100, (2 * 1536) / chunkSize)));
  const distance = new Map(exact.map((row) => [row.id, row.distance]));
  found.forEach((id, i) => {
    assert.ok(Math.abs(distance.get(id)! - exact[i]!.distance) < 1e-6, `${question}: ${i}`);
  });
  assert.equal(new Set(found).size, found.length);
}
