import assert from "node:assert/strict";
import { fuseRankings } from "../../components/retrieval/fusion.ts";

Deno.test("fuseRankings() sums 1 / (60 + rank) over the rankings", () => {
  // b: 1/62 + 1/61 beats a: 1/61 + 1/63 and c: 1/63 + 1/62 and d: only 1/64.
  assert.deepEqual(fuseRankings([["a", "b", "c", "d"], ["b", "c", "a"]]), ["b", "a", "c", "d"]);
});

Deno.test("fuseRankings() lets an item found by both rankings beat one found by one", () => {
  assert.deepEqual(fuseRankings([["x", "both"], ["y", "both"]]), ["both", "x", "y"]);
});

Deno.test("fuseRankings() breaks ties by best rank, then by the earlier ranking", () => {
  assert.deepEqual(fuseRankings([["a", "b"], ["b", "a"]]), ["a", "b"]);
  assert.deepEqual(fuseRankings([["a"], ["b"]]), ["a", "b"]);
  assert.deepEqual(fuseRankings([[], ["b", "a"]]), ["b", "a"]);
});

Deno.test("fuseRankings() takes another k, which changes close calls", () => {
  // With a small k a first rank outweighs two third ranks.
  const rankings = [["solo", "x", "y"], ["a", "b", "pair"], ["c", "d", "pair"]];
  assert.equal(fuseRankings(rankings)[0], "pair");
  assert.equal(fuseRankings(rankings, { k: 0.5 })[0], "solo");
});

Deno.test("fuseRankings() of nothing is nothing", () => {
  assert.deepEqual(fuseRankings([]), []);
  assert.deepEqual(fuseRankings([[], []]), []);
});
