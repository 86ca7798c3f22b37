import assert from "node:assert/strict";
import { MAX_RETRY_DELAY, retryDelay } from "../../ui/backoff.ts";

Deno.test("retryDelay() doubles from one second and stops growing at its bound", () => {
  assert.deepEqual([0, 1, 2, 3, 4].map(retryDelay), [1000, 2000, 4000, 8000, 16000]);
  assert.equal(retryDelay(5), MAX_RETRY_DELAY);
  assert.equal(retryDelay(500), MAX_RETRY_DELAY);
  assert.equal(retryDelay(-1), 1000);
});
