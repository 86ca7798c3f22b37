/**
 * The smoke flow of a running svc: `svc ui` started as a user starts it and
 * stopped, the REST API (log in, upload, create, prepare, a streamed answer,
 * `/docs`) and the web UI (the page and an asset).
 * @module
 */
import assert from "node:assert/strict";
import { type Ended, SECRETS, spawn, waitForUrl } from "../_process.ts";

/**
 * What a user's machine needs to reach the npm registry: its proxy, the certificates of a proxy
 * that inspects TLS, the registry's address and credentials. A child without them fails to
 * download where its parent could.
 */
export const NETWORK_VARIABLES: readonly string[] = [
  "DENO_AUTH_TOKENS",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "NPM_CONFIG_REGISTRY",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  ...["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"].flatMap((name) => [
    name,
    name.toLowerCase(),
  ]),
];

/**
 * The environment of a user's shell: their home, Deno's cache and what reaches the network,
 * nothing of the test's.
 */
export function userEnvironment(): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1", HOME: Deno.env.get("HOME") ?? "/" };
  for (const key of ["PATH", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR", ...NETWORK_VARIABLES]) {
    const value = Deno.env.get(key);
    if (value !== undefined) env[key] = value;
  }
  return env;
}

/** How {@linkcode serveUi} starts svc, and what it checks while svc runs. */
export interface ServeUiOptions {
  /** The arguments of Deno that run `svc ui --no-open-browser`. */
  args: readonly string[];
  cwd: string;
  /** The whole environment of svc, besides the fixed secrets. */
  env: Record<string, string>;
  /** The ports svc serves the API and the UI on. */
  ports: { api: number; ui: number };
  /** What to check of the running svc, given the URLs of its API and UI. */
  check(urls: { api: string; ui: string }): Promise<void>;
  /** What to check of how svc ended, before its exit code is. */
  ended?(ended: Ended): void;
}

/**
 * Starts `svc ui`, waits until its API and UI answer, runs the checks, and
 * stops it: svc must end with code 0, having printed the UI's URL alone.
 */
export async function serveUi(options: ServeUiOptions): Promise<void> {
  await using child = spawn(Deno.execPath(), options.args, {
    cwd: options.cwd,
    clearEnv: true,
    env: { ...options.env, ...SECRETS },
  });
  const api = `http://127.0.0.1:${options.ports.api}`;
  const ui = `http://127.0.0.1:${options.ports.ui}`;
  try {
    await waitForUrl(`${api}/health`, child);
    await waitForUrl(`${ui}/health`, child);
    await options.check({ api, ui });
  } finally {
    const ended = await child.stop();
    options.ended?.(ended);
    assert.equal(ended.code, 0, ended.stderr);
  }
  assert.equal(child.stdout(), `svc UI: ${ui}\n`);
}

/** The bearer headers of a user of the demo authentication. */
export async function login(api: string, user = "ada"): Promise<Record<string, string>> {
  const response = await fetch(`${api}/token`, {
    method: "POST",
    body: new URLSearchParams({ username: user, password: user }),
  });
  assert.equal(response.status, 200, "POST /token");
  return { authorization: `Bearer ${await response.json()}`, "content-type": "application/json" };
}

/** Registers a document, uploads its bytes where the API says, and returns it. */
export async function upload(
  api: string,
  headers: Record<string, string>,
  name: string,
  bytes: Uint8Array<ArrayBuffer>,
): Promise<{ id: string; name: string }> {
  const registered = await fetch(`${api}/document`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name }),
  });
  assert.equal(registered.status, 200, `POST /document ${name}`);
  const { parameters } = await registered.json();
  const form = new FormData();
  for (const [key, value] of Object.entries(parameters.data)) form.set(key, value as string);
  form.set("file", new Blob([bytes]), name);
  const uploaded = await fetch(parameters.url, { method: parameters.method, body: form });
  const body = await uploaded.json();
  assert.equal(uploaded.status, 200, `PUT /document ${name}: ${JSON.stringify(body)}`);
  return body;
}

/** A streamed answer: the JSON Lines read whole. */
export interface StreamedAnswer {
  content: string;
  sources: { document: { name: string }; location: string; content: string }[];
  lines: number;
}

/**
 * Creates a chat over the documents with the named components, prepares it
 * and asks `prompt`, streamed.
 */
export async function chatOnce(
  api: string,
  headers: Record<string, string>,
  options: {
    documents: { id: string; name: string }[];
    sourceStorage: string;
    assistant: string;
    prompt: string;
    params?: Record<string, unknown>;
  },
): Promise<StreamedAnswer> {
  const created = await fetch(`${api}/chats`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      name: "smoke",
      source_storage: options.sourceStorage,
      assistant: options.assistant,
      params: options.params ?? {},
      documents: options.documents,
    }),
  });
  const chat = await created.json();
  assert.equal(created.status, 200, `POST /chats: ${JSON.stringify(chat)}`);
  const prepared = await fetch(`${api}/chats/${chat.id}/prepare`, { method: "POST", headers });
  const welcome = await prepared.json();
  assert.equal(prepared.status, 200, `prepare: ${JSON.stringify(welcome)}`);
  assert.equal(welcome.role, "system");

  const response = await fetch(`${api}/chats/${chat.id}/answer`, {
    method: "POST",
    headers,
    body: JSON.stringify({ prompt: options.prompt, stream: true }),
  });
  assert.equal(response.status, 200, "answer");
  assert.equal(response.headers.get("content-type"), "application/x-ndjson");
  const lines = (await response.text()).trimEnd().split("\n").map((line) => JSON.parse(line));
  assert.equal(lines[0].role, "assistant");
  return {
    content: lines.map((line) => line.content).join(""),
    sources: lines[0].sources,
    lines: lines.length,
  };
}

/** `/`, `/docs`, its assets and `/openapi.json` of the API. */
export async function checkApiPages(api: string, version: string): Promise<void> {
  assert.equal(await (await fetch(`${api}/`)).json(), version, "GET / is the version");
  const docs = await fetch(`${api}/docs`);
  const page = await docs.text();
  assert.equal(docs.status, 200, "/docs");
  const assets = [...page.matchAll(/(?:href|src)="(docs\/[^"]+)"/g)].map((m) => m[1]!);
  assert.deepEqual(assets, ["docs/swagger-ui.css", "docs/swagger-ui-bundle.js"]);
  for (const asset of assets) {
    const response = await fetch(`${api}/${asset}`);
    const body = await response.text();
    assert.equal(response.status, 200, asset);
    assert.ok(body.length > 100_000, `${asset} is whole`);
  }
  const openapi = await (await fetch(`${api}/openapi.json`)).json();
  assert.equal(openapi.info.version, version);
}

/** The UI's page (with its version and its API) and the script it loads. */
export async function checkUiPages(ui: string, api: string, version: string): Promise<void> {
  const response = await fetch(`${ui}/`);
  const page = await response.text();
  assert.equal(response.status, 200, "UI /");
  const settings = JSON.parse(
    /<script id="svc-settings" type="application\/json">(.*?)<\/script>/s.exec(page)![1]!,
  );
  assert.equal(settings.version, version, "the UI shows the version");
  assert.equal(settings.apiUrl, api);
  const script = /<script type="module" src="([^"]+)"/.exec(page)![1]!;
  const asset = await fetch(`${ui}${script}`);
  assert.equal(asset.status, 200, script);
  assert.match(asset.headers.get("content-type")!, /javascript/);
  assert.ok((await asset.text()).length > 10_000, `${script} is whole`);
  const style = /<link rel="stylesheet" href="([^"]+)"/.exec(page)![1]!;
  const css = await fetch(`${ui}${style}`);
  assert.equal(css.status, 200, style);
  await css.body?.cancel();
  const auth = await fetch(`${ui}/auth/`);
  await auth.body?.cancel();
  assert.equal(auth.status, 200, "UI /auth/");
}
