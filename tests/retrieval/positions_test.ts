import assert from "node:assert/strict";
import { bestPositions, indexAt, topPositions } from "../../components/retrieval/positions.ts";

Deno.test("topPositions() gives the best k positions as a full sort would, ties to the lower position", () => {
  let seed = 1;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (const size of [0, 1, 7, 100, 1000]) {
    // Rounded, so that there are ties.
    const scores = Float64Array.from({ length: size }, () => Math.round(random() * 20) / 4);
    const sorted = [...scores.keys()].filter((i) => scores[i]! > 0)
      .sort((a, b) => scores[b]! - scores[a]! || a - b);
    for (const k of [0, 1, 10, 2000]) {
      assert.deepEqual(topPositions(scores, k), sorted.slice(0, k), `${size}, ${k}`);
    }
  }
});

Deno.test("topPositions() of a long list, first cut by a sample of it, gives what a full sort gives", () => {
  let seed = 3;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const sortedOf = (scores: Float64Array, floor: number) =>
    [...scores.keys()].filter((i) => scores[i]! > floor)
      .sort((a, b) => scores[b]! - scores[a]! || a - b);
  const lists = {
    // Few distinct scores: the k-th best ties with many.
    ties: Float64Array.from({ length: 50_000 }, () => Math.round(random() * 8)),
    spread: Float64Array.from({ length: 50_000 }, () => random() - 0.3),
    // The sample (every 32nd score) all high: its cut lets 256 through, too few for 1,000.
    sampledHigh: Float64Array.from({ length: 8192 }, (_, i) => i % 32 === 0 ? 10 : random()),
  };
  for (const [name, scores] of Object.entries(lists)) {
    for (const floor of [0, -Infinity]) {
      const sorted = sortedOf(scores, floor);
      for (const k of [1, 100, 256, 1000]) {
        assert.deepEqual(
          topPositions(scores, k, floor),
          sorted.slice(0, k),
          `${name} ${floor} ${k}`,
        );
        assert.deepEqual(
          bestPositions(scores, k, floor),
          Int32Array.from(sorted.slice(0, k)).sort(),
          `${name} ${floor} ${k}`,
        );
      }
    }
  }
});

Deno.test("topPositions() keeps only scores above the floor", () => {
  const scores = Float64Array.of(-1, 0, -Infinity, 2);
  assert.deepEqual(topPositions(scores, 10), [3]);
  assert.deepEqual(topPositions(scores, 10, -Infinity), [3, 1, 0]);
});

Deno.test("indexAt() finds the list that holds a position, past empty lists", () => {
  const starts = Uint32Array.of(0, 2, 2, 2, 5);
  assert.deepEqual([0, 1, 2, 3, 4].map((position) => indexAt(starts, position)), [0, 0, 3, 3, 3]);
});
