import assert from "node:assert/strict";
import { SvcError } from "../../components/core/errors.ts";
import { quotas } from "../../server/quotas.ts";

Deno.test("quotas() reads each user's quotas from the environment, with defaults", () => {
  assert.deepEqual(quotas({}), {
    maxChatsPerUser: 1000,
    maxStoragePerUser: 1024 ** 3,
    maxPendingDocumentsPerUser: 200,
  });
  assert.deepEqual(
    quotas({
      SVC_API_MAX_CHATS_PER_USER: "20",
      SVC_API_MAX_STORAGE_PER_USER: " 5000000 ",
      SVC_API_MAX_PENDING_DOCUMENTS_PER_USER: "10",
    }),
    { maxChatsPerUser: 20, maxStoragePerUser: 5_000_000, maxPendingDocumentsPerUser: 10 },
  );
  assert.deepEqual(quotas({ SVC_API_MAX_CHATS_PER_USER: "" }).maxChatsPerUser, 1000);
});

Deno.test("quotas() refuses a value that is not a positive whole number or byte count, naming the variable", () => {
  for (const value of ["0", "-3", "1.5", "1 GiB", "1e400"]) {
    assert.throws(
      () => quotas({ SVC_API_MAX_STORAGE_PER_USER: value }),
      (e) =>
        e instanceof SvcError &&
        e.message ===
          `SVC_API_MAX_STORAGE_PER_USER must be a positive number of bytes, not "${value}"`,
      value,
    );
  }
  assert.throws(
    () => quotas({ SVC_API_MAX_CHATS_PER_USER: "many" }),
    /SVC_API_MAX_CHATS_PER_USER must be a positive whole number, not "many"/,
  );
});
