/**
 * Hostile tokens: bearer JWTs with `alg: none`, a wrong algorithm, a foreign key, missing
 * claims, another type or audience, or a session that ended; every protected route refusing
 * forged, expired, ended and upload tokens; upload tokens used for another document, twice, after
 * they expired, or as bearers, with the two secrets equal; API keys on every protected route,
 * refused once revoked or when forged; a trusted proxy's user header from any other address.
 * @module
 */
import assert from "node:assert/strict";
import { generateKeyPair, SignJWT } from "jose";
import { Sessions } from "../../server/auth/sessions.ts";
import { TrustedProxyAuthentication } from "../../server/auth/trusted_proxy.ts";
import { TrustedProxies } from "../../server/auth/trusted_proxies.ts";
import { UploadTokens } from "../../server/upload_token.ts";
import { SESSION_SECRET, type TestApi, testApi } from "../server/api/_api.ts";
import { chatBody, expectError, filesUnder } from "./_hostile.ts";

// The upload tokens' secret is the sessions' own: only a token's type and audience tell them apart.
const SECRET = SESSION_SECRET;
const KEY = new TextEncoder().encode(SECRET);
const HOUR = 3600;
const SESSION = { typ: "svc-session+jwt", aud: "svc:api" };

function base64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));
}

/** Calls `GET /chats` with a bearer token. */
function chatsWith(api: TestApi, token: string) {
  return api.app.request("http://svc.test/chats", {
    headers: { authorization: `Bearer ${token}` },
  });
}

/** Logs in through the API and returns the bearer token. */
async function login(api: TestApi, user = "ada"): Promise<string> {
  const response = await api.app.request("http://svc.test/token", {
    method: "POST",
    body: new URLSearchParams({ username: user, password: user }),
  });
  return await response.json();
}

/** The routes that `/openapi.json` says take a bearer, in its order. */
async function bearerRoutes(api: TestApi): Promise<{ method: string; path: string }[]> {
  const openapi = await (await api.app.request("http://svc.test/openapi.json")).json();
  return Object.entries(openapi.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => (operation as { security?: unknown }).security)
        .map(([method]) => ({ method: method.toUpperCase(), path }))
    );
}

/** A form that uploads `content` with `token`. */
function uploadForm(token: string, content: string): FormData {
  const form = new FormData();
  form.set("token", token);
  form.set("file", new Blob([content]), "a.md");
  return form;
}

Deno.test("bearer tokens with alg none, a wrong algorithm, a foreign key, another type or audience, or no user get 401", async () => {
  let now = new Date("2026-01-01T00:00:00Z");
  await using api = await testApi({ now: () => now });
  const exp = Math.floor(now.getTime() / 1000) + HOUR;
  // A real session, so that only what each token changes is wrong with it.
  const { sid } = claimsOf(await login(api));
  const { privateKey } = await generateKeyPair("RS256");
  const good = { user: "ada", sid, aud: SESSION.aud, exp };
  const sign = (
    claims: Record<string, unknown>,
    {
      alg = "HS256",
      typ = SESSION.typ as string | null,
      key = KEY as Parameters<SignJWT["sign"]>[0],
    } = {},
  ) => new SignJWT(claims).setProtectedHeader({ alg, ...(typ ? { typ } : {}) }).sign(key);
  const hostile: Record<string, string> = {
    "alg none": `${base64url({ alg: "none", typ: SESSION.typ })}.${base64url(good)}.`,
    "alg None, signature kept": `${base64url({ alg: "None", typ: SESSION.typ })}.${
      base64url(good)
    }.${(await sign(good)).split(".")[2]}`,
    "HS512 with the right key": await sign(good, { alg: "HS512" }),
    "HS384 with the right key": await sign(good, { alg: "HS384" }),
    "RS256 with a key of its own": await sign(good, { alg: "RS256", key: privateKey }),
    "HS256 with a foreign key": await sign(good, { key: KEY.map((b) => b ^ 1) }),
    "no user": await sign({ ...good, user: undefined }),
    "a user that is not a string": await sign({ ...good, user: 42 }),
    "no session": await sign({ ...good, sid: undefined }),
    "no expiry": await sign({ ...good, exp: undefined }),
    "no type": await sign(good, { typ: null }),
    "the upload type": await sign(good, { typ: "svc-upload+jwt" }),
    "the upload audience": await sign({ ...good, aud: "svc:upload" }),
    "no audience": await sign({ ...good, aud: undefined }),
    "a payload changed after signing": (await sign({ ...good, user: "eve" })).replace(
      /^([^.]+)\.[^.]+/,
      `$1.${base64url(good)}`,
    ),
    "not a JWT": "not-a-jwt",
    "two parts": "a.b",
  };
  for (const [what, token] of Object.entries(hostile)) {
    const response = await chatsWith(api, token);
    assert.equal(response.status, 401, what);
    await expectError(response, 401, "The bearer token is not valid");
  }
  const noToken = "The request has no bearer token: log in at POST /token";
  for (const authorization of ["", "Bearer", "Bearer ", "Basic YWRhOmFkYQ==", "Token abc"]) {
    const response = await api.app.request("http://svc.test/chats", { headers: { authorization } });
    await expectError(response, 401, noToken);
  }
  // Signed with the secret, but for a session svc never started, or for another user's.
  const ended = "The bearer token's session has ended (logged out): log in again";
  await expectError(await chatsWith(api, await sign({ ...good, sid: "x" })), 401, ended);
  await expectError(await chatsWith(api, await sign({ ...good, user: "eve" })), 401, ended);

  const valid = await sign(good);
  assert.equal((await chatsWith(api, valid)).status, 200);
  now = new Date(now.getTime() + (HOUR + 1) * 1000);
  await expectError(await chatsWith(api, valid), 401, "The bearer token has expired: log in again");
});

Deno.test("POST /logout ends the token's session at once, and only that one", async () => {
  await using api = await testApi();
  const first = await login(api);
  const second = await login(api);
  const logout = (token: string) =>
    api.app.request("http://svc.test/logout", {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
  const response = await logout(first);
  assert.equal(response.status, 200);
  assert.equal(await response.json(), null);
  const ended = "The bearer token's session has ended (logged out): log in again";
  await expectError(await chatsWith(api, first), 401, ended);
  await expectError(await logout(first), 401, ended);
  assert.equal((await chatsWith(api, second)).status, 200, "another session of the user goes on");
  await expectError(await logout("forged"), 401, "The bearer token is not valid");
});

Deno.test("every protected route refuses forged, expired, ended and upload tokens, and revoked or forged API keys", async () => {
  let now = new Date("2026-01-01T00:00:00Z");
  await using api = await testApi({ now: () => now });
  api.deps.uploadTokens = new UploadTokens({ secret: SECRET, now: () => now });
  const { document } = await api.upload("a.md", "# A\n");
  const chat = await (await api.call("POST", "/chats", chatBody(document))).json();
  const routes = await bearerRoutes(api);
  assert.ok(routes.length >= 10, `${routes.length} protected routes`);

  const ended = await login(api);
  await api.app.request("http://svc.test/logout", {
    method: "POST",
    headers: { authorization: `Bearer ${ended}` },
  });
  const registered = await (await api.call("POST", "/document", { name: "b.md" })).json();
  // A session started 8 days ago, which the default of 7 days has ended.
  const start = now;
  now = new Date(start.getTime() - 8 * 24 * HOUR * 1000);
  const expiring = await login(api);
  now = start;
  const { sid } = claimsOf(ended);
  const forged = await new SignJWT({ user: "ada", sid, aud: SESSION.aud })
    .setProtectedHeader({ alg: "HS256", typ: SESSION.typ })
    .setExpirationTime(Math.floor(now.getTime() / 1000) + HOUR)
    .sign(KEY.map((b) => b ^ 1));
  // API keys: one revoked, one never made but of the right shape, and one cut short.
  const revokedKey = await (await api.call("POST", "/api-keys", { name: "revoked" })).json();
  await api.call("DELETE", `/api-keys/${revokedKey.id}`);
  const noKey = "The API key is not valid: it was revoked, or never made; create one in the web " +
    "UI or at POST /api-keys";
  const bad: Record<string, [string, string]> = {
    forged: [forged, "The bearer token is not valid"],
    expired: [expiring, "The bearer token has expired: log in again"],
    ended: [ended, "The bearer token's session has ended (logged out): log in again"],
    upload: [registered.parameters.data.token, "The bearer token is not valid"],
    "revoked API key": [revokedKey.key, noKey],
    "forged API key": [`svc_${"A".repeat(43)}`, noKey],
    "API key cut short": [revokedKey.key.slice(0, 20), noKey],
  };
  for (const { method, path } of routes) {
    const url = `http://svc.test${
      path.replace("{id}", path.startsWith("/chats") ? chat.id : document.id)
    }`;
    for (const [what, [token, message]] of Object.entries(bad)) {
      const response = await api.app.request(url, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: method === "GET" || method === "DELETE" ? undefined : JSON.stringify({}),
      });
      assert.equal(response.status, 401, `${method} ${path} with the ${what} token`);
      await expectError(response, 401, message, path);
    }
  }
  // Nothing was done by them: the chat and the document are still there.
  assert.equal((await api.call("GET", `/chats/${chat.id}`)).status, 200);
});

Deno.test("an API key is a bearer of its user on every protected route", async () => {
  await using api = await testApi();
  await api.as("bob");
  const { document } = await api.upload("a.md", "# A\n");
  const { document: unused } = await api.upload("b.md", "# B\n");
  const { document: added } = await api.upload("c.md", "# C\n");
  const chat = await (await api.call("POST", "/chats", chatBody(document))).json();
  const { key } = await (await api.call("POST", "/api-keys", { name: "every route" })).json();
  const spare = await (await api.call("POST", "/api-keys", { name: "spare" })).json();
  await api.as("ada");
  const ids: Record<string, string> = {
    chats: chat.id,
    documents: unused.id,
    "api-keys": spare.id,
  };
  const bodies: Record<string, unknown> = {
    "POST /document": { name: "c.md" },
    "POST /chats": chatBody(document),
    "POST /chats/{id}/answer": { prompt: "What is in A?" },
    "PATCH /chats/{id}": { name: "Renamed with a key" },
    "POST /chats/{id}/documents": { documents: [added] },
    "POST /chats/{id}/regenerate": {},
    "POST /chats/{id}/messages/{message_id}/edit": { prompt: "What else is in A?" },
    "POST /chats/{id}/messages/{message_id}/feedback": { rating: "good" },
    "POST /api-keys": { name: "made by a key" },
    "POST /v1/chat/completions": {
      model: chat.id,
      messages: [{ role: "user", content: "What is in A?" }],
    },
  };
  // Deletions last, so that every other route still finds what it names (a chat's document
  // before the chat); regenerating and the routes of a message after answering, which they
  // need; an edit after the routes of the answer it takes out of the conversation.
  const order = ({ method, path }: { method: string; path: string }) =>
    method === "DELETE"
      ? path.includes("{document_id}") ? 4 : 5
      : path.endsWith("/edit")
      ? 3
      : path.includes("{message_id}")
      ? 2
      : path.endsWith("/regenerate")
      ? 1
      : 0;
  const routes = (await bearerRoutes(api)).sort((a, b) => order(a) - order(b));
  assert.ok(routes.length >= 14, `${routes.length} protected routes`);
  /** The id of the chat's last message of `role`, read with the key. */
  const last = async (role: string) => {
    const response = await api.app.request(`http://svc.test/chats/${chat.id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const { messages } = await response.json();
    return messages.findLast((message: { role: string }) => message.role === role).id;
  };
  for (const { method, path } of routes) {
    const route = `${method} ${path}`;
    // A question's routes name the question; the other routes of a message, the answer.
    const message = !path.includes("{message_id}")
      ? ""
      : await last(/\/(edit|branch)$/.test(path) ? "user" : "assistant");
    const url = `http://svc.test${
      path.replace("{id}", ids[path.split("/")[1]!]!)
        .replace("{message_id}", message)
        .replace("{document_id}", added.id)
    }`;
    const body = bodies[route];
    const response = await api.app.request(url, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // Logging out is the one refusal: a key has no session, and stays until it is revoked.
    assert.equal(response.status, route === "POST /logout" ? 400 : 200, route);
    await response.body?.cancel();
    assert.equal(JSON.parse(api.logs.at(-1)!).user, "bob", `${route} is bob's`);
  }
  // What the key did, it did as bob: ada has nothing, bob's chat and document are gone.
  assert.deepEqual(await (await api.call("GET", "/chats")).json(), []);
  await api.as("bob");
  assert.equal((await api.call("GET", `/chats/${chat.id}`)).status, 404);
  assert.equal((await api.call("GET", `/api-keys/${spare.id}`)).status, 404);
});

Deno.test("with TrustedProxyAuthentication, every protected route refuses the proxy's header from another address, and forged or upload bearers", async () => {
  {
    await using api = await testApi({
      authentication: new TrustedProxyAuthentication({
        env: { SVC_API_TRUSTED_PROXIES: '["127.0.0.1"]' },
      }),
    });
    api.deps.trustedProxies = new TrustedProxies(["127.0.0.1"]);
    const proxy = { remoteAddr: { hostname: "127.0.0.1" } };
    const stranger = { remoteAddr: { hostname: "127.0.0.2" } };
    const ada = { "x-forwarded-user": "ada" };
    const call = (method: string, path: string, headers: Record<string, string>, from: object) =>
      api.app.request(`http://svc.test${path}`, {
        method,
        headers: { ...headers, "content-type": "application/json" },
        body: method === "GET" || method === "DELETE" ? undefined : JSON.stringify({}),
      }, from);
    const registered = await (await api.app.request("http://svc.test/document", {
      method: "POST",
      headers: { ...ada, "content-type": "application/json" },
      body: JSON.stringify({ name: "a.md" }),
    }, proxy)).json();
    const session = await new Sessions({ database: api.deps.database, key: SESSION_SECRET })
      .start("ada");
    const forged = await new SignJWT({ user: "ada", sid: claimsOf(session).sid, aud: SESSION.aud })
      .setProtectedHeader({ alg: "HS256", typ: SESSION.typ })
      .setExpirationTime(Math.floor(Date.now() / 1000) + HOUR)
      .sign(KEY.map((b) => b ^ 1));
    const routes = await bearerRoutes(api);
    assert.ok(routes.length >= 10, `${routes.length} protected routes`);
    for (const { method, path } of routes) {
      const url = path.replace("{id}", registered.document.id);
      const cases: [string, Record<string, string>, object, string | RegExp][] = [
        ["the header from another address", ada, stranger, /taken only from a trusted proxy/],
        [
          "the header from another address with a good session",
          { ...ada, authorization: `Bearer ${session}` },
          stranger,
          /came from 127\.0\.0\.2, which is not one/,
        ],
        [
          "the header from another address that names the proxy in X-Forwarded-For",
          { ...ada, "x-forwarded-for": "127.0.0.1" },
          stranger,
          /taken only from a trusted proxy/,
        ],
        [
          "a forged bearer",
          { authorization: `Bearer ${forged}` },
          stranger,
          "The bearer token is not valid",
        ],
        [
          "an upload token through the proxy",
          { authorization: `Bearer ${registered.parameters.data.token}` },
          proxy,
          "The bearer token is not valid",
        ],
      ];
      for (const [what, headers, from, message] of cases) {
        const response = await call(method, url, headers, from);
        assert.equal(response.status, 401, `${method} ${path} with ${what}`);
        await expectError(response, 401, message, path);
      }
    }
    // The same session, without a header it may not send, is a bearer like any other.
    const chats = await call("GET", "/chats", { authorization: `Bearer ${session}` }, stranger);
    assert.equal(chats.status, 200);
  }
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

Deno.test("upload and bearer tokens signed with one secret are not each other, and name only their user's documents", async () => {
  await using api = await testApi();
  api.deps.uploadTokens = new UploadTokens({ secret: SECRET });
  const registered = await (await api.call("POST", "/document", { name: "a.md" })).json();
  const uploadToken = registered.parameters.data.token;
  await expectError(await chatsWith(api, uploadToken), 401, "The bearer token is not valid");
  const bearerToken = await login(api);
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
