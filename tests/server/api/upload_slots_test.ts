import assert from "node:assert/strict";
import { UploadSlots } from "../../../server/api/upload_slots.ts";

Deno.test("UploadSlots bounds the uploads per user and overall, and gives slots back once", () => {
  const slots = new UploadSlots({ total: 3, perUser: 2 });
  const ada1 = slots.take("ada");
  slots.take("ada");
  assert.throws(() => slots.take("ada"), {
    status: 429,
    message: "Too many uploads at once: you have 2 uploads running, the most one user may run " +
      "at once (SVC_API_MAX_UPLOADS_PER_USER); send it again when one has finished",
  });
  const bob = slots.take("bob");
  assert.throws(() => slots.take("cy"), {
    status: 429,
    message: "Too many uploads at once: the server is receiving 3 uploads, the most it takes at " +
      "once (SVC_API_MAX_UPLOADS); send it again when one has finished",
  });
  assert.equal(slots.running, 3);
  ada1();
  ada1();
  assert.equal(slots.running, 2, "a slot given back twice counts once");
  slots.take("cy");
  bob();
  slots.take("ada");
  assert.equal(slots.running, 3);
});

Deno.test("UploadSlots defaults to 8 per user and 32 overall", () => {
  const slots = new UploadSlots();
  assert.equal(slots.perUser, 8);
  assert.equal(slots.total, 32);
});
