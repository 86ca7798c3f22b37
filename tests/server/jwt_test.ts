import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { SvcError } from "../../components/core/errors.ts";
import { hmacKey, signJwt, VERIFIED_TOKENS, verifyJwt } from "../../server/jwt.ts";

const key = hmacKey("k".repeat(32));
const issued = new Date("2026-01-01T00:00:00Z");
const later = (seconds: number) => new Date(issued.getTime() + seconds * 1000);
const kind = { type: "test+jwt", audience: "test:here" };
const options = { claims: ["user"], kind, name: "test token", whenExpired: "ask again" } as const;
const sign = { now: issued, ttl: 60, kind };

const refused = (message: string) => (error: unknown) =>
  error instanceof SvcError && error.status === 401 && error.message === message;

Deno.test("signJwt() signs the claims with the type, audience, time of issue and expiry", async () => {
  const token = await signJwt({ user: "ada" }, key, sign);
  const part = (index: number) =>
    JSON.parse(atob(token.split(".")[index]!.replace(/-/g, "+").replace(/_/g, "/")));
  const iat = issued.getTime() / 1000;
  assert.deepEqual(part(0), { alg: "HS256", typ: "test+jwt" });
  assert.deepEqual(part(1), { user: "ada", aud: "test:here", iat, exp: iat + 60 });
  assert.deepEqual(await verifyJwt(token, key, { ...options, now: later(59) }), { user: "ada" });
});

Deno.test("verifyJwt() says an expired token has expired, and what to do", async () => {
  const token = await signJwt({ user: "ada" }, key, sign);
  await assert.rejects(
    verifyJwt(token, key, { ...options, now: later(61) }),
    refused("The test token has expired: ask again"),
  );
});

Deno.test("verifyJwt() refuses malformed and forged tokens, and tokens without an expiry or a claim", async () => {
  const forged = await signJwt({ user: "ada" }, hmacKey("f".repeat(32)), sign);
  const endless = await new SignJWT({ user: "ada", aud: "test:here" })
    .setProtectedHeader({ alg: "HS256", typ: "test+jwt" }).sign(key);
  const userless = await signJwt({ name: "ada" }, key, sign);
  for (const token of ["not.a.jwt", forged, endless, userless]) {
    await assert.rejects(
      verifyJwt(token, key, { ...options, now: issued }),
      refused("The test token is not valid"),
    );
  }
});

Deno.test("verifyJwt() refuses a token of another type or audience, signed with the same key", async () => {
  const others = [
    await signJwt({ user: "ada" }, key, { ...sign, kind: { ...kind, type: "other+jwt" } }),
    await signJwt({ user: "ada" }, key, { ...sign, kind: { ...kind, audience: "other" } }),
    await new SignJWT({ user: "ada", aud: "test:here" }).setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(issued.getTime() / 1000 + 60).sign(key),
    await new SignJWT({ user: "ada" }).setProtectedHeader({ alg: "HS256", typ: "test+jwt" })
      .setExpirationTime(issued.getTime() / 1000 + 60).sign(key),
  ];
  for (const token of others) {
    await assert.rejects(
      verifyJwt(token, key, { ...options, now: issued }),
      refused("The test token is not valid"),
    );
  }
});

Deno.test("hmacKey() encodes a secret, else makes a random key", () => {
  assert.deepEqual(hmacKey("a".repeat(32)), new TextEncoder().encode("a".repeat(32)));
  const random = hmacKey(undefined);
  assert.equal(random.length, 32);
  assert.notDeepEqual(random, hmacKey(undefined));
  assert.equal(hmacKey("").length, 32, "a blank secret counts as unset");
});

Deno.test("hmacKey() refuses a secret shorter than 32 bytes, naming it", () => {
  assert.throws(
    () => hmacKey("short", "SVC_API_SESSION_SECRET"),
    (error: unknown) =>
      error instanceof SvcError &&
      error.message ===
        "SVC_API_SESSION_SECRET is 5 bytes long, too short to sign tokens safely: use at least " +
          '32 random characters (such as the output of "openssl rand -hex 32")',
  );
  // Bytes, not characters: 16 two-byte characters make 32 bytes.
  assert.equal(hmacKey("é".repeat(16)).length, 32);
});

Deno.test("verifyJwt() refuses a token it checked before once it expires, and with another key or kind", async () => {
  const token = await signJwt({ user: "ada" }, key, sign);
  assert.deepEqual(await verifyJwt(token, key, { ...options, now: later(1) }), { user: "ada" });
  assert.deepEqual(await verifyJwt(token, key, { ...options, now: later(2) }), { user: "ada" });
  await assert.rejects(
    verifyJwt(token, key, { ...options, now: later(61) }),
    refused("The test token has expired: ask again"),
  );
  await assert.rejects(
    verifyJwt(token, hmacKey("o".repeat(32)), { ...options, now: later(1) }),
    refused("The test token is not valid"),
  );
  await assert.rejects(
    verifyJwt(token, key, { ...options, kind: { ...kind, audience: "other" }, now: later(1) }),
    refused("The test token is not valid"),
  );
  await assert.rejects(
    verifyJwt(token, key, { ...options, claims: ["user", "sid"], now: later(1) }),
    refused("The test token is not valid"),
  );
});

Deno.test("verifyJwt() remembers at most VERIFIED_TOKENS tokens, the oldest forgotten first", async () => {
  const tokens = [];
  for (let i = 0; i <= VERIFIED_TOKENS; i++) {
    tokens.push(await signJwt({ user: `user${i}` }, key, sign));
  }
  for (const [i, token] of tokens.entries()) {
    assert.deepEqual(await verifyJwt(token, key, { ...options, now: later(1) }), {
      user: `user${i}`,
    });
  }
  // Each is still checked as a whole, remembered or not.
  for (const [i, token] of tokens.entries()) {
    assert.deepEqual(await verifyJwt(token, key, { ...options, now: later(3) }), {
      user: `user${i}`,
    });
  }
});
