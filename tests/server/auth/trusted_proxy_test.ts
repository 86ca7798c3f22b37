import assert from "node:assert/strict";
import http from "node:http";
import { join } from "node:path";
import { denoArgs, freePort, MAIN, run, SECRETS, startProcess } from "../../_process.ts";
import { tmpDir } from "../../test_utils.ts";
import { integration } from "../../_tier.ts";

interface Answer {
  status: number;
  body: unknown;
}

/**
 * A request to the API from a chosen local address: 127.0.0.1 is the proxy,
 * 127.0.0.2 another client on the same machine.
 */
function from(
  localAddress: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: options.method ?? "GET",
      headers: options.headers,
      localAddress,
    }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => text += chunk);
      response.on("end", () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
    });
    request.on("error", reject);
    request.end(options.body);
  });
}

async function writeConfig(dir: string, port: number): Promise<string> {
  const path = join(dir, "svc.toml");
  await Deno.writeTextFile(
    path,
    `local_root = "root"\nauthentication = "svc.deploy.TrustedProxyAuthentication"\n` +
      `[api]\nhostname = "127.0.0.1"\nport = ${port}\n`,
  );
  return path;
}

/** `svc api` with TrustedProxyAuthentication on a free port of 127.0.0.1. */
async function startSvc(dir: string, env: Record<string, string>) {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const svc = await startProcess(["api", "-c", await writeConfig(dir, port)], {
    health: base,
    env,
  });
  return Object.assign(svc, { base });
}

integration.test("TrustedProxyAuthentication takes the user from the trusted proxy's header, and refuses it from another address", async () => {
  await using dir = await tmpDir();
  await using svc = await startSvc(dir.path, { SVC_API_TRUSTED_PROXIES: '["127.0.0.1"]' });
  const base = svc.base;
  const ada = { "X-Forwarded-User": "ada" };

  // Through the proxy: ada's chat is hers, and bob does not see it.
  const created = await from("127.0.0.1", `${base}/chats`, {
    method: "POST",
    headers: { ...ada, "Content-Type": "application/json" },
    body: JSON.stringify({
      name: "Notes",
      source_storage: "Svc/DemoSourceStorage",
      assistant: "Svc/DemoAssistant",
      params: {},
      documents: [],
    }),
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const chats = await from("127.0.0.1", `${base}/chats`, { headers: ada });
  assert.equal(chats.status, 200);
  assert.deepEqual((chats.body as { id: string }[]).map((chat) => chat.id), [
    (created.body as { id: string }).id,
  ]);
  const bobs = await from("127.0.0.1", `${base}/chats`, { headers: { "X-Forwarded-User": "bob" } });
  assert.deepEqual(bobs.body, []);

  // The same header from another address on this machine is refused in words.
  const forged = await from("127.0.0.2", `${base}/chats`, { headers: ada });
  assert.equal(forged.status, 401);
  assert.equal(
    (forged.body as { error: { message: string } }).error.message,
    'The header "X-Forwarded-User" is taken only from a trusted proxy, and this request came ' +
      "from 127.0.0.2, which is not one (SVC_API_TRUSTED_PROXIES)",
  );
  const none = await from("127.0.0.2", `${base}/chats`);
  assert.equal(none.status, 401);
  assert.match(
    (none.body as { error: { message: string } }).error.message,
    /neither the header "X-Forwarded-User" of a trusted proxy nor a bearer token/,
  );
  const empty = await from("127.0.0.1", `${base}/chats`, { headers: { "X-Forwarded-User": " " } });
  assert.equal(empty.status, 401);

  // The proxy signs users in: POST /token through it is a session of the user it names, whatever
  // the form says; a form without the header is not taken, and the header from elsewhere is refused.
  const form = (headers: Record<string, string>) => ({
    method: "POST",
    headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded" },
    body: "username=bob&password=bob",
  });
  const login = await from("127.0.0.1", `${base}/token`, form(ada));
  assert.equal(login.status, 200);
  const session = { authorization: `Bearer ${login.body}` };
  const direct = await from("127.0.0.2", `${base}/chats`, { headers: session });
  assert.equal((direct.body as unknown[]).length, 1, "ada's chat, not bob's");
  assert.equal((await from("127.0.0.1", `${base}/token`, form({}))).status, 405);
  assert.equal((await from("127.0.0.2", `${base}/token`, form(ada))).status, 401);
  const ended = await from("127.0.0.2", `${base}/logout`, { method: "POST", headers: session });
  assert.equal(ended.status, 200);
  assert.equal((await from("127.0.0.2", `${base}/chats`, { headers: session })).status, 401);
  const logout = await from("127.0.0.1", `${base}/logout`, { method: "POST", headers: ada });
  assert.equal(logout.status, 400);
  assert.match(
    (logout.body as { error: { message: string } }).error.message,
    /sign out at the proxy/,
  );
});

integration.test("TrustedProxyAuthentication takes a header name of its own and only the addresses listed", async () => {
  await using dir = await tmpDir();
  await using svc = await startSvc(dir.path, {
    SVC_API_TRUSTED_PROXIES: '["127.0.0.2"]',
    SVC_API_PROXY_USER_HEADER: "Remote-User",
  });
  const base = svc.base;
  const proxied = await from("127.0.0.2", `${base}/chats`, { headers: { "Remote-User": "ada" } });
  assert.equal(proxied.status, 200, JSON.stringify(proxied.body));
  const local = await from("127.0.0.1", `${base}/chats`, { headers: { "Remote-User": "ada" } });
  assert.equal(local.status, 401);
  assert.match(
    (local.body as { error: { message: string } }).error.message,
    /came from 127\.0\.0\.1, which is not one/,
  );
  // The default header is no longer read.
  const other = await from("127.0.0.2", `${base}/chats`, {
    headers: { "X-Forwarded-User": "ada" },
  });
  assert.equal(other.status, 401);
});

integration.test("svc api refuses TrustedProxyAuthentication when it trusts no proxy", async () => {
  await using dir = await tmpDir();
  const config = await writeConfig(dir.path, freePort());
  const ended = await run(Deno.execPath(), denoArgs("run", "-A", MAIN, "api", "-c", config), {
    env: { ...SECRETS, SVC_API_TRUSTED_PROXIES: "" },
  });
  assert.equal(ended.code, 1);
  assert.match(
    ended.stderr,
    /TrustedProxyAuthentication trusts no proxy: set SVC_API_TRUSTED_PROXIES/,
  );
});
