import assert from "node:assert/strict";
import { run } from "../../cli/mod.ts";
import { localRoot } from "../../components/core/local_root.ts";
import { Config } from "../../server/config.ts";
import { serveApi } from "../../server/serve.ts";
import { freePort } from "../_process.ts";
import { capture } from "../cli/_io.ts";
import { tmpDir } from "../test_utils.ts";

async function writeConfig(dir: string, apiPort: number, uiPort: number): Promise<string> {
  const path = `${dir}/svc.toml`;
  await Deno.writeTextFile(
    path,
    `local_root = "root"\n[api]\nport = ${apiPort}\n[ui]\nport = ${uiPort}\n`,
  );
  return path;
}

/** Waits until `url` answers; the deadline only guards against a hang, however busy the machine. */
async function waitFor(url: string): Promise<Response> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    try {
      return await fetch(url);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`Nothing answers at ${url}`);
}

Deno.test("svc ui starts the API when api.url does not answer, and stops both on abort", async () => {
  const previousRoot = localRoot();
  await using dir = await tmpDir();
  const [apiPort, uiPort] = [freePort(), freePort()];
  const config = await writeConfig(dir.path, apiPort, uiPort);
  const io = capture();
  const stop = new AbortController();
  const exit = run(["ui", "-c", config, "--no-browser"], io, { signal: stop.signal, env: {} });
  try {
    const page = await waitFor(`http://127.0.0.1:${uiPort}/`);
    assert.match(await page.text(), new RegExp(`"apiUrl":"http://127.0.0.1:${apiPort}"`));
    const health = await waitFor(`http://127.0.0.1:${apiPort}/health`);
    assert.deepEqual(await health.json(), { status: "ok" });
    assert.equal(io.stdout, `svc UI: http://127.0.0.1:${uiPort}\n`);
  } finally {
    stop.abort();
    assert.equal(await exit, 0, io.stderr);
    localRoot(previousRoot);
  }
  await assert.rejects(fetch(`http://127.0.0.1:${uiPort}/health`));
  await assert.rejects(fetch(`http://127.0.0.1:${apiPort}/health`));
});

Deno.test("svc ui uses an API that answers at api.url instead of starting one", async () => {
  const previousRoot = localRoot();
  await using dir = await tmpDir();
  const [apiPort, uiPort] = [freePort(), freePort()];
  const config = await writeConfig(dir.path, apiPort, uiPort);
  const stopApi = new AbortController();
  const api = await serveApi(await Config.fromFile(config, { env: {} }), {
    log: () => {},
    signal: stopApi.signal,
  });
  const io = capture();
  const stop = new AbortController();
  const exit = run(["ui", "-c", config, "--no-open-browser"], io, {
    signal: stop.signal,
    env: {},
  });
  try {
    await (await waitFor(`http://127.0.0.1:${uiPort}/health`)).body?.cancel();
    assert.match(io.stderr, new RegExp(`Using the API that answers at ${api.url}`));
  } finally {
    stop.abort();
    assert.equal(await exit, 0, io.stderr);
    stopApi.abort();
    await api.finished;
    localRoot(previousRoot);
  }
});

Deno.test("svc ui refuses an svc API of another configuration on api.url, naming both", async () => {
  const previousRoot = localRoot();
  await using dir = await tmpDir();
  const [apiPort, uiPort] = [freePort(), freePort()];
  const config = await writeConfig(dir.path, apiPort, uiPort);
  // The same port, another local root: another configuration.
  const other = await Config.fromFile(config, { env: { SVC_LOCAL_ROOT: `${dir.path}/other` } });
  const stopApi = new AbortController();
  const api = await serveApi(other, { log: () => {}, signal: stopApi.signal });
  try {
    const io = capture();
    assert.equal(await run(["ui", "-c", config, "--no-browser"], io, { env: {} }), 1);
    assert.match(
      io.stderr,
      new RegExp(`An svc API at ${api.url} serves another configuration than "${config}"`),
    );
    await assert.rejects(fetch(`http://127.0.0.1:${uiPort}/health`));
  } finally {
    stopApi.abort();
    await api.finished;
    localRoot(previousRoot);
  }
});

Deno.test("svc ui refuses a server on api.url that is not svc", async () => {
  await using dir = await tmpDir();
  const stop = new AbortController();
  const other = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    () => Response.json({ status: "ok" }),
  );
  const uiPort = freePort();
  const config = await writeConfig(dir.path, other.addr.port, uiPort);
  try {
    const io = capture();
    assert.equal(await run(["ui", "-c", config, "--no-browser"], io, { env: {} }), 1);
    assert.match(
      io.stderr,
      new RegExp(`Something that is not svc answers at http://127.0.0.1:${other.addr.port}`),
    );
  } finally {
    stop.abort();
    await other.finished;
  }
});

Deno.test("svc ui --no-start-api serves the UI alone and says the API does not answer", async () => {
  await using dir = await tmpDir();
  const [apiPort, uiPort] = [freePort(), freePort()];
  const config = await writeConfig(dir.path, apiPort, uiPort);
  const io = capture();
  const stop = new AbortController();
  const exit = run(["ui", "-c", config, "--no-browser", "--no-start-api"], io, {
    signal: stop.signal,
    env: {},
  });
  try {
    await (await waitFor(`http://127.0.0.1:${uiPort}/health`)).body?.cancel();
    assert.match(io.stderr, /does not answer; the UI will say so until it does/);
    await assert.rejects(fetch(`http://127.0.0.1:${apiPort}/health`));
  } finally {
    stop.abort();
    assert.equal(await exit, 0, io.stderr);
  }
});

Deno.test("svc ui refuses a UI port in use, naming it, and leaves no API running", async () => {
  const previousRoot = localRoot();
  await using dir = await tmpDir();
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const apiPort = freePort();
  const config = await writeConfig(dir.path, apiPort, busy.addr.port);
  const io = capture();
  try {
    assert.equal(await run(["ui", "-c", config, "--no-browser"], io, { env: {} }), 1);
    assert.match(io.stderr, new RegExp(`Cannot serve the UI on 127.0.0.1:${busy.addr.port}`));
    await assert.rejects(fetch(`http://127.0.0.1:${apiPort}/health`));
  } finally {
    busy.close();
    localRoot(previousRoot);
  }
});

Deno.test("svc ui --help lists its flags", async () => {
  const io = capture();
  assert.equal(await run(["ui", "--help"], io), 0);
  for (
    const flag of [
      "--open-browser",
      "--no-open-browser",
      "--no-browser",
      "--start-api",
      "--no-start-api",
      "--ignore-unavailable-components",
      "-c, --config",
    ]
  ) {
    assert.ok(io.stdout.includes(flag), `${flag} in:\n${io.stdout}`);
  }
});
