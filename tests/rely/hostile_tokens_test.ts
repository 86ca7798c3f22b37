/**
 * Hostile tokens: bearer JWTs with `alg: none`, a wrong algorithm, a foreign key or missing
 * claims; upload tokens used for another document, twice, after they expired, or as bearers.
 * @module
 */
import assert from "node:assert/strict";
import { generateKeyPair, SignJWT } from "jose";
import { SvcDemoAuthentication } from "../../server/auth.ts";
import { UploadTokens } from "../../server/upload_token.ts";
import { testApi } from "../server/api/_api.ts";
import { expectError, filesUnder } from "./_hostile.ts";

const SECRET = "s".repeat(32);
const KEY = new TextEncoder().encode(SECRET);
const HOUR = 3600;

function base64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

/** Calls `GET /chats` with a bearer token. */
function chatsWith(api: Awaited<ReturnType<typeof testApi>>, token: string) {
  return api.app.request("http://svc.test/chats", {
    headers: { authorization: `Bearer ${token}` },
  });
}

/** A form that uploads `content` with `token`. */
function uploadForm(token: string, content: string): FormData {
  const form = new FormData();
  form.set("token", token);
  form.set("file", new Blob([content]), "a.md");
  return form;
}

Deno.test("bearer tokens with alg none, a wrong algorithm, a foreign key or no user get 401", async () => {
  await using api = await testApi();
  let now = new Date("2026-01-01T00:00:00Z");
  api.deps.authentication = new SvcDemoAuthentication({ secret: SECRET, now: () => now });
  const exp = Math.floor(now.getTime() / 1000) + HOUR;
  const { privateKey } = await generateKeyPair("RS256");
  const sign = (
    claims: Record<string, unknown>,
    alg = "HS256",
    key: Parameters<SignJWT["sign"]>[0] = KEY,
  ) => new SignJWT(claims).setProtectedHeader({ alg }).sign(key);
  const hostile: Record<string, string> = {
    "alg none": `${base64url({ alg: "none", typ: "JWT" })}.${base64url({ user: "ada", exp })}.`,
    "alg None, signature kept": `${base64url({ alg: "None" })}.${base64url({ user: "ada", exp })}.${
      (await sign({ user: "ada", exp })).split(".")[2]
    }`,
    "HS512 with the right key": await sign({ user: "ada", exp }, "HS512"),
    "HS384 with the right key": await sign({ user: "ada", exp }, "HS384"),
    "RS256 with a key of its own": await sign({ user: "ada", exp }, "RS256", privateKey),
    "HS256 with a foreign key": await sign({ user: "ada", exp }, "HS256", KEY.map((b) => b ^ 1)),
    "no user": await sign({ exp }),
    "a user that is not a string": await sign({ user: 42, exp }),
    "no expiry": await sign({ user: "ada" }),
    "a payload changed after signing": (await sign({ user: "eve", exp })).replace(
      /^([^.]+)\.[^.]+/,
      `$1.${base64url({ user: "ada", exp })}`,
    ),
    "not a JWT": "not-a-jwt",
    "two parts": "a.b",
  };
  for (const [what, token] of Object.entries(hostile)) {
    await expectError(await chatsWith(api, token), 401, "The bearer token is not valid");
    assert.ok(what);
  }
  const noToken = "The request has no bearer token: log in at POST /token";
  for (const authorization of ["", "Bearer", "Bearer ", "Basic YWRhOmFkYQ==", "Token abc"]) {
    const response = await api.app.request("http://svc.test/chats", { headers: { authorization } });
    await expectError(response, 401, noToken);
  }
  const valid = await sign({ user: "ada", exp });
  assert.equal((await chatsWith(api, valid)).status, 200);
  now = new Date(now.getTime() + (HOUR + 1) * 1000);
  await expectError(await chatsWith(api, valid), 401, "The bearer token has expired: log in again");
});

Deno.test("an upload token uploads its own document once, and not after it expired", async () => {
  await using api = await testApi();
  let now = new Date("2026-01-01T00:00:00Z");
  api.deps.uploadTokens = new UploadTokens({ secret: SECRET, now: () => now });
  const register = async (name: string) =>
    await (await api.call("POST", "/document", { name })).json();
  const put = (token: string, content: string) =>
    api.app.request("http://svc.test/document", {
      method: "PUT",
      body: uploadForm(token, content),
    });
  const a = await register("a.md");
  const b = await register("b.md");

  // The token names its document: A's token fills A, whatever the form's file is called.
  const first = await put(a.parameters.data.token, "# A\n");
  assert.deepEqual(await first.json(), a.document);
  const root = api.deps.localRoot;
  assert.deepEqual(await filesUnder(root), [`documents/${a.document.id}`]);

  // Used again, it cannot replace what it uploaded.
  await expectError(
    await put(a.parameters.data.token, "# Replaced\n"),
    409,
    `The document "${a.document.id}" has its file already: register the document again to ` +
      "upload another file",
  );
  assert.equal(await Deno.readTextFile(`${root}/documents/${a.document.id}`), "# A\n");
  assert.deepEqual(await filesUnder(root), [`documents/${a.document.id}`]);

  // An upload that failed used nothing up: the token still works until it expires.
  const tooBig = await put(b.parameters.data.token, "x".repeat(2 * 1024 * 1024));
  assert.equal(tooBig.status, 413);
  now = new Date(now.getTime() + 299_000);
  assert.equal((await put(b.parameters.data.token, "# B\n")).status, 200);

  const c = await register("c.md");
  now = new Date(now.getTime() + 301_000);
  await expectError(
    await put(c.parameters.data.token, "# C\n"),
    401,
    "The upload token has expired: register the document again",
  );
  assert.deepEqual(
    await filesUnder(root),
    [`documents/${a.document.id}`, `documents/${b.document.id}`].sort(),
  );
});

Deno.test("upload and bearer tokens are not each other, and name only their user's documents", async () => {
  await using api = await testApi();
  api.deps.uploadTokens = new UploadTokens({ secret: SECRET });
  const registered = await (await api.call("POST", "/document", { name: "a.md" })).json();
  const uploadToken = registered.parameters.data.token;
  await expectError(await chatsWith(api, uploadToken), 401, "The bearer token is not valid");
  const login = await api.app.request("http://svc.test/token", {
    method: "POST",
    body: new URLSearchParams({ username: "ada", password: "ada" }),
  });
  const bearerToken = await login.json();
  const put = (token: string) =>
    api.app.request("http://svc.test/document", { method: "PUT", body: uploadForm(token, "#") });
  await expectError(await put(bearerToken), 401, "The upload token is not valid");
  const exp = Math.floor(Date.now() / 1000) + HOUR;
  const none = `${base64url({ alg: "none" })}.${base64url({ user: "ada", id: "x", exp })}.`;
  await expectError(await put(none), 401, "The upload token is not valid");
  // A token that names another user's document (only the server's secret can make one) finds
  // nothing, as for a document that does not exist.
  const forEve = await api.deps.uploadTokens.sign("eve", registered.document.id);
  await expectError(await put(forEve), 404, `No document "${registered.document.id}"`);
  const missing = await api.deps.uploadTokens.sign("ada", "no-such-id");
  await expectError(await put(missing), 404, 'No document "no-such-id"');
  assert.deepEqual(await filesUnder(api.deps.localRoot), []);
});
