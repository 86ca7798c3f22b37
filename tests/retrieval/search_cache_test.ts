import assert from "node:assert/strict";
import { SearchCache } from "../../components/retrieval/search_cache.ts";

Deno.test("SearchCache drops the least recently used entries beyond its budget", () => {
  const cache = new SearchCache<{ bytes: number }>(100);
  cache.set("a", { bytes: 40 });
  cache.set("b", { bytes: 40 });
  assert.equal(cache.get("a")?.bytes, 40); // now the most recent
  cache.set("c", { bytes: 40 });
  assert.equal(cache.get("b"), undefined);
  assert.ok(cache.get("a") && cache.get("c"));
  assert.equal(cache.bytes, 80);
});

Deno.test("SearchCache keeps an entry larger than its budget alone, and replaces an entry under the same key", () => {
  const cache = new SearchCache<{ bytes: number }>(100);
  cache.set("a", { bytes: 10 });
  cache.set("big", { bytes: 500 });
  assert.equal(cache.get("a"), undefined);
  assert.equal(cache.bytes, 500);
  cache.set("big", { bytes: 20 });
  assert.equal(cache.bytes, 20);
  cache.delete("big");
  cache.delete("missing");
  assert.equal(cache.bytes, 0);
});

Deno.test("SearchCache tells an entry it drops, and not one set again under its key", () => {
  const dropped: string[] = [];
  const entry = (name: string, bytes: number) => ({ bytes, dropped: () => dropped.push(name) });
  const cache = new SearchCache<ReturnType<typeof entry>>(100);
  const a = entry("a", 60);
  cache.set("a", a);
  cache.set("a", a);
  assert.deepEqual(dropped, []);
  cache.set("b", entry("b", 60)); // beyond the budget: a goes
  cache.set("b", entry("newer b", 30)); // replaces b
  cache.delete("b");
  assert.deepEqual(dropped, ["a", "b", "newer b"]);
  assert.equal(cache.bytes, 0);
});

Deno.test("SearchCache tells of each entry it keeps or drops, not of those it is asked for", () => {
  let changes = 0;
  const cache = new SearchCache<{ bytes: number }>(100, () => changes++);
  const entry = { bytes: 60 };
  cache.set("a", entry);
  assert.equal(changes, 1);
  cache.get("a");
  cache.get("none");
  cache.set("a", entry);
  assert.equal(changes, 1);
  // Kept, and "a" dropped for it.
  cache.set("b", { bytes: 60 });
  assert.equal(changes, 3);
  cache.delete("b");
  assert.equal(changes, 4);
});

Deno.test("SearchCache keeps what a plain list of keys, the latest used last, keeps", () => {
  // 2,000 random sets, gets and deletes of 40 keys, the cache against the list after each.
  let seed = 7;
  const random = (below: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % below;
  };
  const cache = new SearchCache<{ bytes: number }>(100);
  let order: { key: string; bytes: number }[] = [];
  const use = (key: string) => {
    const found = order.find((kept) => kept.key === key);
    if (found) order = [...order.filter((kept) => kept !== found), found];
    return found;
  };
  for (let step = 0; step < 2000; step++) {
    const key = `k${random(40)}`;
    const action = random(10);
    if (action < 4) {
      const bytes = 1 + random(30);
      cache.set(key, { bytes });
      order = [...order.filter((kept) => kept.key !== key), { key, bytes }];
      while (order.reduce((sum, kept) => sum + kept.bytes, 0) > 100 && order.length > 1) {
        order.shift();
      }
    } else if (action < 9) {
      assert.equal(cache.get(key)?.bytes, use(key)?.bytes, `get ${key} at step ${step}`);
    } else {
      cache.delete(key);
      order = order.filter((kept) => kept.key !== key);
    }
    assert.equal(cache.bytes, order.reduce((sum, kept) => sum + kept.bytes, 0), `step ${step}`);
  }
});
