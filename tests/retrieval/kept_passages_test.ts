import assert from "node:assert/strict";
import {
  keepPassages,
  keptOrRead,
  type KeptPassages,
} from "../../components/retrieval/kept_passages.ts";
import { SearchCache } from "../../components/retrieval/search_cache.ts";

/** The passages of an index of `count` passages, each saying which index it is of. */
function passagesOf(name: string, count: number): KeptPassages {
  return keepPassages(
    Array.from({ length: count }, (_, ordinal) => ({
      ordinal,
      text: `${name} ${ordinal}`,
      pages: "[1]",
      numTokens: 2,
    })),
    0,
  );
}

/** A reader of passages that notes which indexes it was asked for. */
function reader(asked: string[][]) {
  return async function* (missing: string[]) {
    asked.push(missing);
    for (const id of missing) {
      await Promise.resolve();
      yield { id, passages: passagesOf(id, id === "empty" ? 0 : 3) };
    }
  };
}

Deno.test("keptOrRead() reads once the passages pushed out of memory when the chat's fit in half the budget, and keeps them", async () => {
  const small = passagesOf("a", 3);
  const cache = new SearchCache<KeptPassages>(small.bytes * 10);
  cache.set("a", small);
  const asked: string[][] = [];
  const indexes = [{ id: "a", cacheKey: "a" }, { id: "b", cacheKey: "b" }, {
    id: "b",
    cacheKey: "b",
  }];
  const found = await keptOrRead(cache, indexes, small.bytes * 2, reader(asked));
  assert.deepEqual(asked, [["b"]]);
  assert.equal(found[0], small);
  assert.deepEqual(found[1]!.texts, ["b 0", "b 1", "b 2"]);
  assert.equal(found[2], found[1]);
  // Kept: the next question reads nothing.
  const again = await keptOrRead(cache, indexes, small.bytes * 2, reader(asked));
  assert.deepEqual(asked, [["b"]]);
  assert.equal(again[1], found[1]);
});

Deno.test("keptOrRead() reads nothing for a chat larger than half the budget, and keeps no index without passages", async () => {
  const cache = new SearchCache<KeptPassages>(1000);
  const asked: string[][] = [];
  const large = await keptOrRead(cache, [{ id: "a", cacheKey: "a" }], 600, reader(asked));
  assert.deepEqual(asked, []);
  assert.deepEqual(large, [undefined]);
  const empty = await keptOrRead(cache, [{ id: "empty", cacheKey: "empty" }], 10, reader(asked));
  assert.deepEqual(asked, [["empty"]]);
  assert.equal(empty[0]!.texts.length, 0);
  assert.equal(cache.get("empty"), undefined);
});
