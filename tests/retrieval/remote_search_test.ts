import assert from "node:assert/strict";
import type { StoredChunk } from "../../components/indexing/mod.ts";
import { type RemoteReads, RemoteSearch } from "../../components/retrieval/mod.ts";

const INDEXES: Record<string, string[]> = {
  bread: ["The winter loaf holds cardamom.", "Rye dough rests for twelve hours."],
  garden: ["Garlic is planted in October.", "The winter bed grew beans and cardamom."],
};

/** A store of two indexes whose nearest chunks are at the distances given, and which counts reads. */
function store(distances: Record<string, number[]>) {
  const reads = { texts: 0, chunks: 0 };
  const chunk = (key: string, ordinal: number): StoredChunk => ({
    key,
    ordinal,
    text: INDEXES[key]![ordinal]!,
    pageNumbers: [],
    numTokens: 8,
  });
  const remote: RemoteReads = {
    texts: (key) => (reads.texts++, Promise.resolve(INDEXES[key]!)),
    chunks: (
      key,
      ordinals,
    ) => (reads.chunks++, Promise.resolve(ordinals.map((o) => chunk(key, o)))),
    nearest: (key) =>
      Promise.resolve(
        distances[key]!.map((distance, ordinal) => ({ ...chunk(key, ordinal), distance })),
      ),
  };
  return { remote, reads };
}

const query = (text: string, limit = 10) => ({ text, vector: Float32Array.of(1), limit });

Deno.test("RemoteSearch ranks the texts of the indexes as one collection, and reads each index's texts once", async () => {
  const { remote, reads } = store({ bread: [0.5, 0.5], garden: [0.5, 0.5] });
  const search = new RemoteSearch();
  const [text] = await search.search(["bread", "garden"], query("cardamom winter"), remote);
  assert.deepEqual(text!.map((chunk) => `${chunk.key}${chunk.ordinal}`), ["bread0", "garden1"]);
  await search.search(["bread", "garden"], query("garlic"), remote);
  assert.equal(reads.texts, 2);
  // An index handed over when stored is never read.
  const stored = new RemoteSearch();
  stored.add("bread", INDEXES.bread!);
  await stored.search(["bread"], query("rye"), remote);
  assert.equal(reads.texts, 2);
});

Deno.test("RemoteSearch merges each index's nearest chunks: nearest first, ties by key and ordinal, within the limit", async () => {
  const { remote } = store({ bread: [0.3, 0.1], garden: [0.1, 0.2] });
  const [, vector] = await new RemoteSearch().search(
    ["garden", "bread"],
    query("anything", 3),
    remote,
  );
  assert.deepEqual(vector!.map((chunk) => `${chunk.key}${chunk.ordinal}`), [
    "bread1",
    "garden0",
    "garden1",
  ]);
});
