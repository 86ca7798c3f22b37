import assert from "node:assert/strict";
import { chat, document, freshDatabase, KINDS, message, svcError } from "./_helpers.ts";

for (const kind of KINDS) {
  Deno.test(`Database commits concurrent writes together, refusing a failing one alone (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    const { db } = fresh;
    await db.addDocument("ada", document("d1"));
    await db.addChat("ada", chat("c1", [document("d1")]));

    // Issued at once, these wait for the same commit.
    const writes = [
      db.addMessages("ada", "c1", [message("m1")]),
      db.addMessages("ada", "missing", [message("m2")]),
      db.addMessages("ada", "c1", [message("m3"), message("m1")]),
      db.addMessages("ada", "c1", [message("m4")]),
      db.addChat("ada", chat("c2", [document("d1")])),
    ];
    const settled = await Promise.allSettled(writes);
    assert.deepEqual(settled.map((s) => s.status), [
      "fulfilled",
      "rejected",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    assert.ok(svcError(404, 'No chat "missing"')((settled[1] as PromiseRejectedResult).reason));
    assert.ok(svcError(409, /message "m1"/)((settled[2] as PromiseRejectedResult).reason));

    const stored = await db.getChat("ada", "c1");
    assert.deepEqual(stored.messages.map((m) => m.id), ["m1", "m4"], "m3 went with its write");
    assert.equal((await db.listChats("ada")).length, 2);
    const rows = await fresh.rows?.();
    if (rows !== undefined) assert.equal(rows.messages, 2);
  });
}
