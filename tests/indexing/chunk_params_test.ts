import assert from "node:assert/strict";
import { chunkLimits } from "../../components/indexing/chunk_limits.ts";
import { chunkSizeParam } from "../../components/indexing/chunk_params.ts";

Deno.test("chunkSizeParam() bounds chunk_size and keeps 500 as its default within the bounds", () => {
  const schema = chunkSizeParam(chunkLimits({}));
  assert.equal(schema.parse(undefined), 500);
  assert.equal(schema.parse(8), 8);
  assert.equal(schema.parse(8192), 8192);
  assert.equal(schema.safeParse(7).error?.issues[0]?.message, "must be at least 8");
  assert.equal(schema.safeParse(8193).error?.issues[0]?.message, "must be at most 8192");
  const above = chunkSizeParam(chunkLimits({ SVC_MIN_CHUNK_SIZE: "600" }));
  assert.equal(above.parse(undefined), 600);
  const below = chunkSizeParam(chunkLimits({ SVC_MAX_CHUNK_SIZE: "200" }));
  assert.equal(below.parse(undefined), 200);
});

Deno.test("chunkSizeParam() gives the same schema while the bounds are the same, another when they change", () => {
  const schema = chunkSizeParam(chunkLimits({}));
  assert.equal(chunkSizeParam(chunkLimits({})), schema);
  const other = chunkSizeParam(chunkLimits({ SVC_MAX_CHUNK_SIZE: "300" }));
  assert.notEqual(other, schema);
  assert.equal(other.safeParse(301).success, false);
});
