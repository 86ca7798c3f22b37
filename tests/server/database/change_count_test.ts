import assert from "node:assert/strict";
import { ChangeCount, ReadCache } from "../../../server/database/change_count.ts";

Deno.test("ReadCache reads again after a change, also one made during the read, and keeps the most recent keys only", async () => {
  const count = new ChangeCount();
  const cache = new ReadCache<string>(count, 2);
  let reads = 0;
  const read = (key: string, during?: () => void) =>
    cache.read(key, () => {
      reads++;
      during?.();
      return Promise.resolve(`${key} ${reads}`);
    });
  assert.equal(await read("ada", () => count.bump()), "ada 1");
  assert.equal(await read("ada"), "ada 2", "a change during the read forgot it");
  assert.equal(await read("ada"), "ada 2");
  await read("bob");
  await read("cy");
  assert.equal(await read("ada"), "ada 5", "ada was the least recent of three");
});

Deno.test("ReadCache keeps only what its test takes, and gives a kept value only while the test holds", async () => {
  const count = new ChangeCount();
  const cache = new ReadCache<number>(count, 8);
  let value = 10;
  let limit = 100;
  const read = () => cache.read("k", () => Promise.resolve(value++), (v) => v < limit);
  assert.equal(await read(), 10);
  assert.equal(await read(), 10);
  limit = 10;
  assert.equal(await read(), 11, "the kept value no longer holds");
  assert.equal(await read(), 12, "nor does the one read");
});

Deno.test("ChangeCount is shared through its buffer, as with the database thread", () => {
  const count = new ChangeCount();
  const seen = new ChangeCount(count.buffer);
  count.bump();
  count.bump();
  assert.equal(seen.value, 2);
});
