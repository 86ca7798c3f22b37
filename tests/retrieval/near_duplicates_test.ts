import assert from "node:assert/strict";
import { dropNearDuplicates, repeatsNone } from "../../components/retrieval/near_duplicates.ts";

const text = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `word${from + i}`).join(" ");

Deno.test("dropNearDuplicates() drops a passage mostly within a better one of the same document", () => {
  const a = { document: "a", content: text(0, 40) };
  const overlapping = { document: "a", content: text(10, 45) };
  const next = { document: "a", content: text(30, 70) };
  const kept = dropNearDuplicates([a, overlapping, next]);
  assert.deepEqual(kept, [a, next]);
});

Deno.test("dropNearDuplicates() keeps the same text of another document, and the order", () => {
  const a = { document: "a", content: text(0, 20) };
  const b = { document: "b", content: text(0, 20) };
  const c = { document: "a", content: "A short one" };
  assert.deepEqual(dropNearDuplicates([c, a, b]), [c, a, b]);
  assert.deepEqual(dropNearDuplicates([c, { document: "a", content: "a SHORT one!" }]), [c]);
});

Deno.test("repeatsNone() compares a source only with those it took", () => {
  const take = repeatsNone();
  const a = { document: "a", content: text(0, 40) };
  assert.equal(take(a), true);
  assert.equal(take({ document: "a", content: text(5, 40) }), false);
  // A passage of other words is taken.
  assert.equal(take({ document: "a", content: text(40, 80) }), true);
});
