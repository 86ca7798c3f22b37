import assert from "node:assert/strict";
import { forEachAtOnce } from "../../components/core/at_once.ts";

Deno.test("forEachAtOnce() runs each item once, never more than it allows at a time", async () => {
  const items = Array.from({ length: 20 }, (_, i) => i);
  const seen: number[] = [];
  let running = 0;
  let most = 0;
  await forEachAtOnce(items, 3, async (item) => {
    most = Math.max(most, ++running);
    // Two turns, so that the others start while this one runs.
    await Promise.resolve();
    await Promise.resolve();
    seen.push(item);
    running--;
  });
  assert.deepEqual(seen.toSorted((a, b) => a - b), items);
  assert.equal(most, 3);
});

Deno.test("forEachAtOnce() rejects with the error of an item", async () => {
  await assert.rejects(
    forEachAtOnce(
      [1, 2],
      2,
      (item) => item === 2 ? Promise.reject(new Error("two")) : Promise.resolve(),
    ),
    /two/,
  );
});
