import assert from "node:assert/strict";
import { Bm25Index, bm25Search, queryTerms } from "../../../components/retrieval/lexical/bm25.ts";

Deno.test("bm25Search() ranks rarer and more frequent query words higher", () => {
  const index = Bm25Index.build([
    "The bakery opens at six.",
    "The winter loaf holds cardamom, and cardamom is its secret.",
    "Cardamom once.",
    "Rye bread and the bakery.",
  ]);
  const hits = bm25Search([index], "What is the secret spice, cardamom?", 10);
  assert.deepEqual(hits.map((hit) => hit.text), [1, 2]);
  assert.ok(hits[0]!.score > hits[1]!.score);
});

Deno.test("bm25Search() ranks several indexes as one collection, stems and ties in order", () => {
  const first = Bm25Index.build(["Braided breads", "nothing"]);
  const second = Bm25Index.build(["A braided bread", "bread"]);
  const hits = bm25Search([first, second], "braid the bread", 3);
  assert.deepEqual(hits.map(({ index, text }) => [index, text]), [[0, 0], [1, 0], [1, 1]]);
  assert.deepEqual(bm25Search([first, second], "braid the bread", 1).length, 1);
  assert.deepEqual(bm25Search([first], "the", 10), []);
  assert.deepEqual(bm25Search([], "bread", 10), []);
  assert.equal(first.size, 2);
  assert.equal(first.postingCount, 3);
});

Deno.test("queryTerms() keeps the 32 longest words of a long prompt, in their order", () => {
  const filler = Array.from({ length: 100 }, (_, i) => `w${i}`).join(" ");
  const terms = queryTerms(`${filler} cardamom`);
  assert.equal(terms.length, 32);
  assert.equal(terms.at(-1), "cardamom");
  assert.deepEqual(queryTerms("What is the secret?"), ["secret"]);
});
