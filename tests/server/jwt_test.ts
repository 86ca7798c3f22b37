import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { SvcError } from "../../components/core/errors.ts";
import { hmacKey, signJwt, verifyJwt } from "../../server/jwt.ts";

const key = hmacKey("k".repeat(32));
const issued = new Date("2026-01-01T00:00:00Z");
const later = (seconds: number) => new Date(issued.getTime() + seconds * 1000);
const options = { claims: ["user"], name: "test token", whenExpired: "ask again" } as const;

const refused = (message: string) => (error: unknown) =>
  error instanceof SvcError && error.status === 401 && error.message === message;

Deno.test("signJwt() signs the claims with the time of issue and the expiry", async () => {
  const token = await signJwt({ user: "ada" }, key, { now: issued, ttl: 60 });
  const payload = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));
  const iat = issued.getTime() / 1000;
  assert.deepEqual(payload, { user: "ada", iat, exp: iat + 60 });
  assert.deepEqual(await verifyJwt(token, key, { ...options, now: later(59) }), { user: "ada" });
});

Deno.test("verifyJwt() says an expired token has expired, and what to do", async () => {
  const token = await signJwt({ user: "ada" }, key, { now: issued, ttl: 60 });
  await assert.rejects(
    verifyJwt(token, key, { ...options, now: later(61) }),
    refused("The test token has expired: ask again"),
  );
});

Deno.test("verifyJwt() refuses malformed and forged tokens, and tokens without an expiry or a claim", async () => {
  const forged = await signJwt({ user: "ada" }, hmacKey("f".repeat(32)), { now: issued, ttl: 60 });
  const endless = await new SignJWT({ user: "ada" }).setProtectedHeader({ alg: "HS256" }).sign(key);
  const userless = await signJwt({ name: "ada" }, key, { now: issued, ttl: 60 });
  for (const token of ["not.a.jwt", forged, endless, userless]) {
    await assert.rejects(
      verifyJwt(token, key, { ...options, now: issued }),
      refused("The test token is not valid"),
    );
  }
});

Deno.test("hmacKey() encodes a secret, else makes a random key", () => {
  assert.deepEqual(hmacKey("abc"), new TextEncoder().encode("abc"));
  const random = hmacKey(undefined);
  assert.equal(random.length, 32);
  assert.notDeepEqual(random, hmacKey(undefined));
  assert.equal(hmacKey("").length, 32, "a blank secret counts as unset");
});
