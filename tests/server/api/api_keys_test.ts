import assert from "node:assert/strict";
import { join } from "node:path";
import { SvcError } from "../../../components/core/errors.ts";
import { ApiKeys, hashApiKey } from "../../../server/auth/api_keys.ts";
import { SvcDemoAuthentication } from "../../../server/auth/demo.ts";
import { PasswordAuthentication } from "../../../server/auth/password.ts";
import { freePort } from "../../_process.ts";
import { tmpDir } from "../../test_utils.ts";
import { startApi } from "../../cli/_api_process.ts";
import { expectError } from "../../rely/_hostile.ts";
import { type TestApi, testApi } from "./_api.ts";
import { integration } from "../../_tier.ts";

const NOT_VALID = "The API key is not valid: it was revoked, or never made; create one in the " +
  "web UI or at POST /api-keys";

/** Calls the API with `key` as the bearer. */
function withKey(api: TestApi, key: string, method: string, path: string, body?: unknown) {
  return api.app.request(`http://svc.test${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

Deno.test("an API key is made and shown once, listed without its secret, works as a bearer, and is refused at once once revoked", async () => {
  await using api = await testApi();
  const { document } = await api.upload("a.md", "# A\n");
  const created = await api.call("POST", "/api-keys", { name: "nightly import" });
  assert.equal(created.status, 200);
  const made = await created.json();
  assert.deepEqual(Object.keys(made).sort(), [
    "created",
    "id",
    "key",
    "last_used",
    "name",
    "prefix",
  ]);
  assert.match(made.key, /^svc_[A-Za-z0-9_-]{43}$/);
  assert.equal(made.prefix, made.key.slice(0, 12));
  assert.equal(made.name, "nightly import");
  assert.equal(made.last_used, null);
  assert.ok(Math.abs(Date.parse(made.created) - Date.now()) < 60_000, made.created);

  // Listed and read without the key; nothing the API answers holds it again.
  const { key, ...record } = made;
  const listed = await api.call("GET", "/api-keys");
  const listing = await listed.text();
  assert.deepEqual(JSON.parse(listing), [record]);
  assert.ok(!listing.includes(key));
  assert.deepEqual(await (await api.call("GET", `/api-keys/${made.id}`)).json(), record);
  // The database finds it by its SHA-256: what it keeps is the hash.
  const owner = await api.deps.database.apiKeyOwner(await hashApiKey(key));
  assert.deepEqual([owner?.id, owner?.user], [made.id, "ada"]);

  // It is a bearer of its user: ada's document, ada's chat.
  const chat = await withKey(api, key, "POST", "/chats", {
    name: "By key",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [document],
  });
  assert.equal(chat.status, 200);
  const chatId = (await chat.json()).id;
  assert.equal((await api.call("GET", `/chats/${chatId}`)).status, 200, "the chat is ada's");
  const [used] = await (await api.call("GET", "/api-keys")).json();
  assert.ok(Math.abs(Date.parse(used.last_used) - Date.now()) < 60_000, used.last_used);

  // A key manages keys too: it makes one and revokes it.
  const second = await (await withKey(api, key, "POST", "/api-keys", { name: "ci" })).json();
  assert.equal((await withKey(api, second.key, "GET", "/chats")).status, 200);
  const revokedByKey = await withKey(api, key, "DELETE", `/api-keys/${second.id}`);
  assert.equal(revokedByKey.status, 200);
  await expectError(await withKey(api, second.key, "GET", "/chats"), 401, NOT_VALID);

  const revoked = await api.call("DELETE", `/api-keys/${made.id}`);
  assert.equal(revoked.status, 200);
  assert.equal(await revoked.json(), null);
  for (const [method, path] of [["GET", "/chats"], ["GET", "/api-keys"], ["POST", "/logout"]]) {
    await expectError(await withKey(api, key, method!, path!), 401, NOT_VALID);
  }
  assert.deepEqual(await (await api.call("GET", "/api-keys")).json(), []);
  await expectError(
    await api.call("DELETE", `/api-keys/${made.id}`),
    404,
    `No API key "${made.id}"`,
  );
  assert.equal(await api.deps.database.apiKeyOwner(await hashApiKey(key)), undefined);
});

Deno.test("another user's API key is neither listed, read nor revoked: 404, and it goes on working", async () => {
  await using api = await testApi();
  await api.as("bob");
  const bobs = await (await api.call("POST", "/api-keys", { name: "bob's" })).json();
  await api.call("POST", "/chats", {
    name: "Bob's chat",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [(await api.upload("b.md", "# B\n")).document],
  });
  await api.as("ada");
  const adas = await (await api.call("POST", "/api-keys", { name: "ada's" })).json();
  const { key: _, ...adaRecord } = adas;
  assert.deepEqual(await (await api.call("GET", "/api-keys")).json(), [adaRecord]);
  // With ada's session or ada's key alike, bob's key is not there.
  for (
    const call of [
      (method: string, path: string) => api.call(method, path),
      (method: string, path: string) => withKey(api, adas.key, method, path),
    ]
  ) {
    await expectError(await call("GET", `/api-keys/${bobs.id}`), 404, `No API key "${bobs.id}"`);
    await expectError(
      await call("DELETE", `/api-keys/${bobs.id}`),
      404,
      `No API key "${bobs.id}"`,
    );
  }
  // Bob's key is still bob's, and sees bob's chats only.
  const chats = await (await withKey(api, bobs.key, "GET", "/chats")).json();
  assert.deepEqual(chats.map((chat: { metadata: { name: string } }) => chat.metadata.name), [
    "Bob's chat",
  ]);
  assert.deepEqual(await (await withKey(api, adas.key, "GET", "/chats")).json(), []);
});

/** A sign-in of its own that takes no bearer token at all, as one whose proxy or provider signs in. */
class NoBearer extends SvcDemoAuthentication {
  override getUser(): Promise<string> {
    return Promise.reject(new SvcError("Only the gateway signs users in", { status: 401 }));
  }
}

Deno.test("an API key is a bearer whichever authentication is configured, even one that overrides getUser()", async () => {
  for (
    const authentication of [
      new SvcDemoAuthentication(),
      new PasswordAuthentication(),
      new NoBearer(),
    ]
  ) {
    const name = authentication.constructor.name;
    await using api = await testApi({ authentication });
    const { key } = await new ApiKeys({ database: api.deps.database }).create("ada", "k");
    const response = await withKey(api, key, "GET", "/chats");
    assert.equal(response.status, 200, name);
    assert.deepEqual(await response.json(), [], name);
    await expectError(await withKey(api, `svc_${"B".repeat(43)}`, "GET", "/chats"), 401, NOT_VALID);
  }
});

Deno.test("POST /api-keys refuses a name that is missing, empty, too long or has control characters, and keys past the most a user may have", async () => {
  await using api = await testApi();
  for (
    const body of [{}, { name: "" }, { name: "x".repeat(256) }, { name: "a\nb" }, {
      name: "ok",
      scope: "all",
    }]
  ) {
    const response = await api.call("POST", "/api-keys", body);
    assert.equal(response.status, 422, JSON.stringify(body));
  }
  assert.deepEqual(await (await api.call("GET", "/api-keys")).json(), []);
  api.deps.apiKeys = new ApiKeys({ database: api.deps.database, maxPerUser: 2 });
  for (const name of ["one", "two"]) {
    assert.equal((await api.call("POST", "/api-keys", { name })).status, 200);
  }
  await expectError(
    await api.call("POST", "/api-keys", { name: "three" }),
    429,
    "You have 2 API keys, the most a user may have: revoke one before creating another",
  );
  const [first] = await (await api.call("GET", "/api-keys")).json();
  await api.call("DELETE", `/api-keys/${first.id}`);
  assert.equal((await api.call("POST", "/api-keys", { name: "three" })).status, 200);
});

Deno.test("POST /logout with an API key is refused with a sentence, and the key stays valid", async () => {
  await using api = await testApi();
  const { key } = await (await api.call("POST", "/api-keys", { name: "script" })).json();
  await expectError(
    await withKey(api, key, "POST", "/logout"),
    400,
    "An API key has no session to end: revoke it in the web UI or at DELETE /api-keys/{id}",
  );
  assert.equal((await withKey(api, key, "GET", "/chats")).status, 200);
});

integration.test("an API key made on one svc api is a bearer on another that shares its database, refused there at once when revoked, and kept only as its hash", async () => {
  await using dir = await tmpDir();
  const ports = [freePort(), freePort()];
  const configs = ports.map((_, i) => join(dir.path, `replica${i}.toml`));
  for (const [i, config] of configs.entries()) {
    await Deno.writeTextFile(config, `local_root = "root"\n[api]\nport = ${ports[i]}\n`);
  }
  await using first = await startApi(configs[0]!, ports[0]!);
  await using second = await startApi(configs[1]!, ports[1]!);
  const token = await (await fetch(`${first.base}/token`, {
    method: "POST",
    body: new URLSearchParams({ username: "ada", password: "ada" }),
  })).json();
  const session = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const make = async (name: string) =>
    await (await fetch(`${first.base}/api-keys`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({ name }),
    })).json();
  const made = await make("replicas");
  const kept = await make("kept");
  const asKey = { authorization: `Bearer ${made.key}` };
  for (const svc of [first, second]) {
    const response = await fetch(`${svc.base}/chats`, { headers: asKey });
    assert.equal(response.status, 200, svc.base);
    await response.body?.cancel();
  }
  const revoked = await fetch(`${first.base}/api-keys/${made.id}`, {
    method: "DELETE",
    headers: session,
  });
  assert.equal(revoked.status, 200);
  await revoked.body?.cancel();
  for (const svc of [second, first]) {
    const response = await fetch(`${svc.base}/chats`, { headers: asKey });
    assert.equal(response.status, 401, svc.base);
    assert.equal((await response.json()).error.message, NOT_VALID);
  }
  assert.equal((await first.stop()).code, 0);
  assert.equal((await second.stop()).code, 0);
  let text = "";
  for await (const entry of Deno.readDir(join(dir.path, "root"))) {
    if (!entry.name.startsWith("svc.db")) continue;
    text += new TextDecoder("latin1").decode(
      await Deno.readFile(join(dir.path, "root", entry.name)),
    );
  }
  assert.ok(text.includes(await hashApiKey(kept.key)), "the database keeps the key's hash");
  for (const key of [made.key, kept.key]) {
    assert.ok(!text.includes(key.slice(12)), "the database does not keep the key");
  }
});
