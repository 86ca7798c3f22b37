import assert from "node:assert/strict";
import { batches, WriteBatches } from "../../components/indexing/write_batches.ts";

/** A turn of writes, one at a time, as a store's queue gives it. */
function queue(): (write: () => Promise<void>) => Promise<unknown> {
  let last: Promise<unknown> = Promise.resolve();
  return (write) => last = last.then(write).catch(() => {});
}

Deno.test("WriteBatches writes together what was added while a write was under way", async () => {
  const writes: string[][] = [];
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  const { promise: begun, resolve: begin } = Promise.withResolvers<void>();
  const batches = new WriteBatches<string>(async (items) => {
    writes.push(items);
    begin();
    await held;
  }, queue());
  const first = batches.add("a");
  await begun;
  const rest = ["b", "c", "d"].map((item) => batches.add(item));
  release();
  await Promise.all([first, ...rest]);
  assert.deepEqual(writes, [["a"], ["b", "c", "d"]]);
});

Deno.test("WriteBatches fails the items of a write that fails, and writes the next batch", async () => {
  const batches = new WriteBatches<string>(async (items) => {
    await Promise.resolve();
    if (items.includes("bad")) throw new Error("the disk is full");
  }, queue());
  const results = await Promise.allSettled([batches.add("bad"), batches.add("with it")]);
  assert.deepEqual(results.map((result) => result.status), ["rejected", "rejected"]);
  await batches.add("after");
});

Deno.test("batches() gives the items some at a time, each batch with the position of its first", async () => {
  const seen: [number, string[]][] = [];
  for await (const { start, items } of batches(["a", "b", "c", "d", "e"], 2)) {
    seen.push([start, items]);
  }
  assert.deepEqual(seen, [[0, ["a", "b"]], [2, ["c", "d"]], [4, ["e"]]]);
  for await (const _ of batches([], 2)) assert.fail("no batch of no items");
});
