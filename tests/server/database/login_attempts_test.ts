import assert from "node:assert/strict";
import type { AttemptLimits, LoginAttempt } from "../../../server/auth/login_attempts.ts";
import { freshDatabase, KINDS } from "./_helpers.ts";

const LIMITS: AttemptLimits = { since: 0, perUserAddress: 10, perAddress: 30, perUser: 100 };

function attempt(user: string, address: string, at: number): LoginAttempt {
  return { id: crypto.randomUUID(), user, address, at };
}

for (const kind of KINDS) {
  Deno.test(`Database counts at most the limit of 40 logins reserved at once (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    const db = fresh.db;
    const reservations = await Promise.all(
      Array.from(
        { length: 40 },
        (_, i) => db.reserveLoginAttempt(attempt("ada", "10.0.0.1", 1_000 + i), LIMITS),
      ),
    );
    assert.equal(reservations.filter((r) => r.reserved).length, 10);
    for (const refused of reservations.filter((r) => !r.reserved)) {
      assert.deepEqual(refused, {
        reserved: false,
        counts: { userAddress: 10, address: 10, user: 10 },
      });
    }
    assert.equal((await db.loginAttemptTimes({ user: "ada" }, 0)).length, 10);
  });

  Deno.test(`Database refuses a login at each limit, counts within the window, and forgets a user's (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    const db = fresh.db;
    const limits = { since: 0, perUserAddress: 2, perAddress: 3, perUser: 4 };
    const reserve = (user: string, address: string, at: number, since = 0) =>
      db.reserveLoginAttempt(attempt(user, address, at), { ...limits, since });
    assert.equal((await reserve("ada", "a", 1_000)).reserved, true);
    assert.equal((await reserve("ada", "a", 2_000)).reserved, true);
    assert.deepEqual(await reserve("ada", "a", 3_000), {
      reserved: false,
      counts: { userAddress: 2, address: 2, user: 2 },
    });
    assert.equal((await reserve("bob", "a", 3_000)).reserved, true);
    assert.deepEqual(await reserve("cy", "a", 4_000), {
      reserved: false,
      counts: { userAddress: 0, address: 3, user: 0 },
    });
    assert.equal((await reserve("ada", "b", 4_000)).reserved, true);
    assert.equal((await reserve("ada", "c", 5_000)).reserved, true);
    assert.deepEqual(await reserve("ada", "d", 6_000), {
      reserved: false,
      counts: { userAddress: 0, address: 0, user: 4 },
    });
    assert.deepEqual(await db.loginAttemptTimes({ user: "ada" }, 0), [1_000, 2_000, 4_000, 5_000]);
    assert.deepEqual(await db.loginAttemptTimes({ user: "ada", address: "a" }, 1_000), [2_000]);
    assert.deepEqual(await db.loginAttemptTimes({ address: "a" }, 0), [1_000, 2_000, 3_000]);
    // A window that starts later leaves the old logins out, and takes them away.
    assert.equal((await reserve("ada", "d", 7_000, 2_000)).reserved, true);
    assert.deepEqual(await db.loginAttemptTimes({ user: "ada" }, 0), [4_000, 5_000, 7_000]);
    assert.equal(await db.clearLoginAttempts("ada", "b"), 1);
    assert.deepEqual(await db.loginAttemptTimes({ user: "ada" }, 0), [5_000, 7_000]);
    assert.equal(await db.clearLoginAttempts("ada"), 2);
    assert.deepEqual(await db.loginAttemptTimes({ user: "ada" }, 0), []);
    assert.deepEqual(await db.loginAttemptTimes({ user: "bob" }, 0), [3_000], "other users stay");
  });
}
