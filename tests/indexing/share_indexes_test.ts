import assert from "node:assert/strict";
import { SvcError } from "../../components/core/errors.ts";
import { shareIndexesFromEnv } from "../../components/indexing/share_indexes.ts";

Deno.test("shareIndexesFromEnv() reads true and false words, off when unset", () => {
  for (const value of ["true", "1", "yes", "on", " TRUE "]) {
    assert.equal(shareIndexesFromEnv(value), true, value);
  }
  for (const value of [undefined, "", "false", "0", "no", "off", "Off"]) {
    assert.equal(shareIndexesFromEnv(value), false, String(value));
  }
  assert.throws(
    () => shareIndexesFromEnv("maybe"),
    (error) =>
      error instanceof SvcError &&
      error.message ===
        'The environment variable "SVC_SHARE_INDEXES" must be "true" or "false", not "maybe"',
  );
});
