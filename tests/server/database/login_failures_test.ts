import assert from "node:assert/strict";
import { freshDatabase, KINDS } from "./_helpers.ts";

for (const kind of KINDS) {
  Deno.test(`Database counts failed logins by key, within a window, and forgets a key's (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    const db = fresh.db;
    await db.addLoginFailures(["user:ada", "address:10.0.0.1"], 1_000, 0);
    await db.addLoginFailures(["user:ada"], 2_000, 0);
    await db.addLoginFailures(["user:bob"], 2_500, 0);
    assert.deepEqual(await db.loginFailures("user:ada", 0), [1_000, 2_000]);
    assert.deepEqual(await db.loginFailures("user:ada", 1_000), [2_000], "after `since` only");
    assert.deepEqual(await db.loginFailures("address:10.0.0.1", 0), [1_000]);
    // A new failure takes the key's failures until `before` away.
    await db.addLoginFailures(["user:ada"], 3_000, 1_500);
    assert.deepEqual(await db.loginFailures("user:ada", 0), [2_000, 3_000]);
    await db.clearLoginFailures("user:ada");
    assert.deepEqual(await db.loginFailures("user:ada", 0), []);
    assert.deepEqual(await db.loginFailures("user:bob", 0), [2_500], "other keys stay");
  });
}
