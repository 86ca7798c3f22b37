import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  ApiKeys,
  hashApiKey,
  isApiKey,
  LAST_USED_PRECISION,
  requestApiKey,
} from "../../../server/auth/api_keys.ts";
import { openDatabase } from "../../../server/database/mod.ts";

async function withKeys(
  fn: (keys: ApiKeys, clock: { now: Date }) => Promise<void>,
): Promise<void> {
  const database = await openDatabase("sqlite://", { localRoot: "." });
  const clock = { now: new Date("2026-01-01T00:00:00Z") };
  try {
    await fn(new ApiKeys({ database, now: () => clock.now }), clock);
  } finally {
    await database.close();
  }
}

Deno.test("ApiKeys.create() makes keys of 32 random bytes, each unique, kept as their SHA-256", async () => {
  await withKeys(async (keys) => {
    const made = await Promise.all([1, 2, 3].map((n) => keys.create("ada", `key ${n}`)));
    assert.equal(new Set(made.map(({ key }) => key)).size, 3);
    for (const { key, record } of made) {
      assert.match(key, /^svc_[A-Za-z0-9_-]{43}$/);
      assert.equal(Uint8Array.fromBase64(key.slice(4), { alphabet: "base64url" }).length, 32);
      assert.equal(record.prefix, key.slice(0, 12));
      assert.equal(await hashApiKey(key), createHash("sha256").update(key).digest("hex"));
    }
    assert.deepEqual((await keys.list("ada")).map((record) => record.name).sort(), [
      "key 1",
      "key 2",
      "key 3",
    ]);
  });
});

Deno.test("ApiKeys.verify() refuses malformed, unknown and revoked keys with 401", async () => {
  await withKeys(async (keys) => {
    const { key, record } = await keys.create("ada", "k");
    for (const bad of ["svc_", "svc_short", `${key}x`, key.slice(0, -1), `svc_${"A".repeat(43)}`]) {
      await assert.rejects(keys.verify(bad), (error: Error & { status?: number }) => {
        assert.equal(error.status, 401, bad);
        assert.match(error.message, /^The API key is not valid/);
        return true;
      });
    }
    assert.equal(await keys.verify(key), "ada");
    await keys.revoke("ada", record.id);
    await assert.rejects(keys.verify(key), /not valid/);
    await assert.rejects(keys.revoke("ada", record.id), /No API key/);
  });
});

Deno.test("ApiKeys.verify() records when a key was last used, once a minute at most", async () => {
  await withKeys(async (keys, clock) => {
    const { key } = await keys.create("ada", "k");
    const start = clock.now.getTime() / 1000;
    assert.equal((await keys.list("ada"))[0]!.lastUsed, null);
    clock.now = new Date(clock.now.getTime() + 5_000);
    await keys.verify(key);
    assert.equal((await keys.list("ada"))[0]!.lastUsed, start + 5);
    clock.now = new Date(clock.now.getTime() + (LAST_USED_PRECISION - 1) * 1000);
    await keys.verify(key);
    assert.equal((await keys.list("ada"))[0]!.lastUsed, start + 5, "within the minute");
    clock.now = new Date(clock.now.getTime() + 1000);
    await keys.verify(key);
    assert.equal((await keys.list("ada"))[0]!.lastUsed, start + 5 + LAST_USED_PRECISION);
  });
});

Deno.test("removing a user's account revokes its API keys, and no one else's", async () => {
  const database = await openDatabase("sqlite://", { localRoot: "." });
  try {
    const keys = new ApiKeys({ database });
    await database.addAccount("ada", "hash", 0);
    const ada = await keys.create("ada", "k");
    const bob = await keys.create("bob", "k");
    await database.removeAccount("ada");
    await assert.rejects(keys.verify(ada.key), /not valid/);
    assert.deepEqual(await keys.list("ada"), []);
    assert.equal(await keys.verify(bob.key), "bob");
  } finally {
    await database.close();
  }
});

Deno.test("requestApiKey() takes a bearer with the key prefix, and nothing else", () => {
  const request = (authorization?: string) =>
    new Request("http://svc.test/", { headers: authorization ? { authorization } : {} });
  assert.equal(requestApiKey(request("Bearer svc_abc")), "svc_abc");
  assert.equal(requestApiKey(request("bearer svc_abc")), "svc_abc");
  assert.equal(requestApiKey(request("Bearer eyJ.a.b")), undefined);
  assert.equal(requestApiKey(request("Basic c3ZjX2FiYzo=")), undefined);
  assert.equal(requestApiKey(request("Bearer")), undefined);
  assert.equal(requestApiKey(request()), undefined);
  assert.equal(isApiKey("svc_"), true);
});
