import assert from "node:assert/strict";
import { SvcError } from "../../../components/core/errors.ts";
import { SvcDemoAuthentication } from "../../../server/auth/demo.ts";
import { bearer, login, setUp } from "./_context.ts";

const status = (code: number, pattern: RegExp) => (e: unknown) =>
  e instanceof SvcError && e.status === code && pattern.test(e.message);

Deno.test("SvcDemoAuthentication logs in a user whose password is the username", async () => {
  await using set = await setUp(new SvcDemoAuthentication());
  const { auth } = set;
  const token = await auth.createToken(login("ada", "ada"));
  assert.equal(await auth.getUser(bearer(token)), "ada");
  assert.equal(await auth.getUser(bearer(await auth.createToken(login("", "")))), "");
  await assert.rejects(auth.createToken(login("ada", "bob")), status(401, /wrong/));
});

Deno.test("SvcDemoAuthentication says at start-up that it is for demos", async () => {
  await using set = await setUp(new SvcDemoAuthentication());
  assert.deepEqual(set.warnings, [
    "SvcDemoAuthentication is for demos only: any username logs in with the same password as " +
    "the username",
  ]);
});

Deno.test("SvcDemoAuthentication takes a multipart login too", async () => {
  await using set = await setUp(new SvcDemoAuthentication());
  const body = new FormData();
  body.set("username", "ada");
  body.set("password", "ada");
  const request = new Request("http://svc/token", { method: "POST", body });
  const token = await set.auth.createToken(request);
  assert.equal(await set.auth.getUser(bearer(token)), "ada");
});

Deno.test("SvcDemoAuthentication with a set password takes only that password", async () => {
  await using set = await setUp(new SvcDemoAuthentication({ password: "open sesame" }));
  await set.auth.createToken(login("ada", "open sesame"));
  await assert.rejects(set.auth.createToken(login("ada", "ada")), status(401, /wrong/));
  assert.match(set.auth.notice, /SVC_DEMO_AUTHENTICATION_PASSWORD/);
});

Deno.test("SvcDemoAuthentication names the missing login fields", async () => {
  await using set = await setUp(new SvcDemoAuthentication());
  await assert.rejects(set.auth.createToken(login("ada")), status(422, /lacks the field password/));
  await assert.rejects(
    set.auth.createToken(new Request("http://svc/token", { method: "POST", body: "{}" })),
    status(422, /must be a form/),
  );
});

Deno.test("SvcDemoAuthentication refuses missing, malformed, forged, expired and ended tokens", async () => {
  let now = new Date("2026-01-01T00:00:00Z");
  await using set = await setUp(new SvcDemoAuthentication({ ttl: 60 }), { now: () => now });
  const { auth } = set;
  const token = await auth.createToken(login("ada", "ada"));
  await assert.rejects(
    auth.getUser(new Request("http://svc/chats")),
    status(401, /no bearer token/),
  );
  await assert.rejects(auth.getUser(bearer("not.a.jwt")), status(401, /not valid/));
  await using forger = await setUp(new SvcDemoAuthentication(), {
    secret: "f".repeat(32),
    now: () => now,
    database: set.database,
  });
  const forged = await forger.auth.createToken(login("ada", "ada"));
  await assert.rejects(auth.getUser(bearer(forged)), status(401, /not valid/));
  const ended = await auth.createToken(login("ada", "ada"));
  await auth.logout(bearer(ended));
  await assert.rejects(auth.getUser(bearer(ended)), status(401, /session has ended/));
  assert.equal(await auth.getUser(bearer(token)), "ada", "the other session goes on");
  now = new Date(now.getTime() + 61_000);
  await assert.rejects(auth.getUser(bearer(token)), status(401, /expired/));
});

Deno.test("SvcDemoAuthentication tokens carry the user, their type and audience, and expire after the TTL", async () => {
  const now = new Date("2026-01-01T00:00:00Z");
  await using set = await setUp(new SvcDemoAuthentication({ ttl: 7 * 24 * 3600 }), {
    now: () => now,
  });
  const token = await set.auth.createToken(login("ada", "ada"));
  const part = (index: number) =>
    JSON.parse(atob(token.split(".")[index]!.replace(/-/g, "+").replace(/_/g, "/")));
  assert.deepEqual(part(0), { alg: "HS256", typ: "svc-session+jwt" });
  assert.equal(part(1).user, "ada");
  assert.equal(part(1).aud, "svc:api");
  assert.equal(typeof part(1).sid, "string");
  assert.equal(part(1).exp - now.getTime() / 1000, 7 * 24 * 3600);
});

Deno.test("an authentication that was not set up says so", async () => {
  await assert.rejects(
    new SvcDemoAuthentication().createToken(login("ada", "ada")),
    /SvcDemoAuthentication was not set up: call setUp\(\)/,
  );
});
