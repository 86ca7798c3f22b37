import assert from "node:assert/strict";
import { SvcError } from "../../components/core/errors.ts";
import { SvcDemoAuthentication } from "../../server/auth.ts";

function login(username?: string, password?: string): Request {
  const body = new URLSearchParams();
  if (username !== undefined) body.set("username", username);
  if (password !== undefined) body.set("password", password);
  return new Request("http://svc/token", { method: "POST", body });
}

function bearer(token: string): Request {
  return new Request("http://svc/chats", { headers: { authorization: `Bearer ${token}` } });
}

const status = (code: number, pattern: RegExp) => (e: unknown) =>
  e instanceof SvcError && e.status === code && pattern.test(e.message);

Deno.test("SvcDemoAuthentication logs in a user whose password is the username", async () => {
  const auth = new SvcDemoAuthentication({ secret: "s".repeat(32) });
  const token = await auth.createToken(login("ada", "ada"));
  assert.equal(await auth.getUser(bearer(token)), "ada");
  assert.equal(await auth.getUser(bearer(await auth.createToken(login("", "")))), "");
  await assert.rejects(auth.createToken(login("ada", "bob")), status(401, /wrong/));
});

Deno.test("SvcDemoAuthentication takes a multipart login too", async () => {
  const auth = new SvcDemoAuthentication();
  const body = new FormData();
  body.set("username", "ada");
  body.set("password", "ada");
  const token = await auth.createToken(new Request("http://svc/token", { method: "POST", body }));
  assert.equal(await auth.getUser(bearer(token)), "ada");
});

Deno.test("SvcDemoAuthentication with a set password takes only that password", async () => {
  const auth = new SvcDemoAuthentication({ password: "open sesame" });
  await auth.createToken(login("ada", "open sesame"));
  await assert.rejects(auth.createToken(login("ada", "ada")), status(401, /wrong/));
  assert.match(auth.notice, /SVC_DEMO_AUTHENTICATION_PASSWORD/);
});

Deno.test("SvcDemoAuthentication names the missing login fields", async () => {
  const auth = new SvcDemoAuthentication();
  await assert.rejects(auth.createToken(login("ada")), status(422, /lacks the field password/));
  await assert.rejects(
    auth.createToken(new Request("http://svc/token", { method: "POST", body: "{}" })),
    status(422, /must be a form/),
  );
});

Deno.test("SvcDemoAuthentication refuses missing, malformed, forged and expired tokens", async () => {
  let now = new Date("2026-01-01T00:00:00Z");
  const auth = new SvcDemoAuthentication({ secret: "k".repeat(32), ttl: 60, now: () => now });
  const token = await auth.createToken(login("ada", "ada"));
  await assert.rejects(
    auth.getUser(new Request("http://svc/chats")),
    status(401, /no bearer token/),
  );
  await assert.rejects(auth.getUser(bearer("not.a.jwt")), status(401, /not valid/));
  const forger = new SvcDemoAuthentication({ secret: "f".repeat(32), now: () => now });
  const forged = await forger.createToken(login("ada", "ada"));
  await assert.rejects(auth.getUser(bearer(forged)), status(401, /not valid/));
  now = new Date(now.getTime() + 61_000);
  await assert.rejects(auth.getUser(bearer(token)), status(401, /expired/));
});

Deno.test("SvcDemoAuthentication tokens carry the user and expire after the TTL", async () => {
  const now = new Date("2026-01-01T00:00:00Z");
  const auth = new SvcDemoAuthentication({ ttl: 7 * 24 * 3600, now: () => now });
  const token = await auth.createToken(login("ada", "ada"));
  const payload = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));
  assert.equal(payload.user, "ada");
  assert.equal(payload.exp - now.getTime() / 1000, 7 * 24 * 3600);
});
