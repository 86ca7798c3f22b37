import assert from "node:assert/strict";
import { fillBudget, numTokensParam } from "../../components/retrieval/budget.ts";

const sources = (...sizes: number[]) => sizes.map((numTokens, i) => ({ id: i, numTokens }));

Deno.test("fillBudget() keeps sources in order while their tokens fit", () => {
  assert.deepEqual(fillBudget(sources(400, 400, 400), 1000).map((s) => s.id), [0, 1]);
  assert.deepEqual(fillBudget(sources(500, 500), 1000).map((s) => s.id), [0, 1]);
});

Deno.test("fillBudget() skips a source that overflows and lets a smaller later one in", () => {
  assert.deepEqual(fillBudget(sources(600, 500, 300, 200), 1000).map((s) => s.id), [0, 2]);
  assert.deepEqual(fillBudget(sources(2000, 30), 1000).map((s) => s.id), [1]);
});

Deno.test("fillBudget() of an empty list or a zero budget is empty", () => {
  assert.deepEqual(fillBudget([], 1000), []);
  assert.deepEqual(fillBudget(sources(1), 0), []);
});

Deno.test("fillBudget() asks accept() of each source that fits, in order, and skips a refused one", () => {
  const asked: number[] = [];
  const kept = fillBudget(sources(300, 900, 300, 300, 300), 1000, {
    accept: (source) => {
      asked.push(source.id);
      return source.id !== 2;
    },
  });
  assert.deepEqual(kept.map((s) => s.id), [0, 3, 4]);
  assert.deepEqual(asked, [0, 2, 3, 4]);
});

Deno.test("numTokensParam() bounds num_tokens by SVC_MAX_NUM_TOKENS, with a sentence past it", () => {
  const schema = numTokensParam(1536, {});
  assert.equal(schema.parse(undefined), 1536);
  assert.equal(schema.parse(32768), 32768);
  assert.equal(
    schema.safeParse(32769).error?.issues[0]?.message,
    "must be at most 32768 (SVC_MAX_NUM_TOKENS)",
  );
  const small = numTokensParam(1536, { SVC_MAX_NUM_TOKENS: "1000" });
  assert.equal(small.parse(undefined), 1000, "the default within the bound");
  assert.equal(small.safeParse(1001).success, false);
  assert.throws(() => numTokensParam(1536, { SVC_MAX_NUM_TOKENS: "lots" }), {
    message: 'SVC_MAX_NUM_TOKENS must be a positive whole number, not "lots"',
  });
});

Deno.test("numTokensParam() gives the same schema while its bound and default are the same", () => {
  const schema = numTokensParam(1536, {});
  assert.equal(numTokensParam(1536, {}), schema);
  assert.notEqual(numTokensParam(1536, { SVC_MAX_NUM_TOKENS: "1000" }), schema);
  assert.notEqual(numTokensParam(512, {}), schema);
});
