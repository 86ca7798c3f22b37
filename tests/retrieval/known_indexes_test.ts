import assert from "node:assert/strict";
import { KnownIndexes } from "../../components/retrieval/known_indexes.ts";

/** A store of indexes by key that counts the keys it is asked for. */
function store<T>(indexes: Record<string, T>) {
  const asked: string[][] = [];
  return {
    asked,
    read: (keys: string[]) => {
      asked.push(keys);
      return Promise.resolve(
        keys.filter((key) => key in indexes).map((key) => [key, indexes[key]!] as const),
      );
    },
  };
}

Deno.test("KnownIndexes reads only the keys it does not know, and gives the indexes in their order", async () => {
  const known = new KnownIndexes<number>();
  const { asked, read } = store({ a: 1, b: 2, c: 3 });
  assert.deepEqual(await known.of(["b", "a"], read), [2, 1]);
  assert.deepEqual(await known.of(["c", "gone", "a", "b"], read), [3, 1, 2]);
  assert.deepEqual(asked, [["b", "a"], ["c", "gone"]]);
});

Deno.test("KnownIndexes reads them all again once the store's state changed", async () => {
  const known = new KnownIndexes<number>();
  const { asked, read } = store({ a: 1 });
  await known.of(["a"], read, "v1");
  await known.of(["a"], read, "v1");
  await known.of(["a"], read, "v2");
  // A fresh object each time: read at every call.
  await known.of(["a"], read, {});
  await known.of(["a"], read, {});
  assert.equal(asked.length, 4);
});

Deno.test("KnownIndexes tells when an index is new or made anew, and forgets beyond its size", async () => {
  let changes = 0;
  const known = new KnownIndexes<{ id: number }>({
    size: 2,
    same: (a, b) => a.id === b.id,
    changed: () => changes++,
  });
  known.learn("a", { id: 1 });
  known.learn("a", { id: 1 });
  assert.equal(changes, 1);
  known.learn("a", { id: 2 });
  assert.equal(changes, 2);
  known.learn("b", { id: 3 });
  known.learn("c", { id: 4 });
  const { asked, read } = store<{ id: number }>({});
  await known.of(["a", "b", "c"], read);
  assert.deepEqual(asked, [["a", "b"]], "a and b were forgotten for c");
  known.clear();
  await known.of(["c"], read);
  assert.deepEqual(asked.at(-1), ["c"]);
});
