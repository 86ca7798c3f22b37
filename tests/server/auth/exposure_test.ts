import assert from "node:assert/strict";
import { exposedDemo, isLoopback } from "../../../server/auth/exposure.ts";
import { PasswordAuthentication } from "../../../server/auth/password.ts";
import { SvcDemoAuthentication } from "../../../server/auth/demo.ts";
import { Config } from "../../../server/config.ts";
import { serveApi } from "../../../server/serve.ts";
import { freePort } from "../../_process.ts";
import { tmpDir } from "../../test_utils.ts";

Deno.test("isLoopback() knows this machine's own addresses", () => {
  for (const host of ["127.0.0.1", "127.8.0.3", "localhost", "LOCALHOST", "::1", "[::1]"]) {
    assert.equal(isLoopback(host), true, host);
  }
  for (const host of ["0.0.0.0", "::", "[::]", "192.168.0.7", "svc.example.com", "128.0.0.1"]) {
    assert.equal(isLoopback(host), false, host);
  }
});

Deno.test("exposedDemo() names the demo sign-in off loopback, unless allowed", () => {
  const exposed = Config.from({ api: { hostname: "0.0.0.0" } }, { env: {} });
  const message = exposedDemo(exposed, SvcDemoAuthentication);
  assert.equal(
    message,
    'The demo sign-in ("svc.deploy.SvcDemoAuthentication") lets anyone who reaches ' +
      "0.0.0.0:31476 log in as any user, so it is refused on an address other than loopback: " +
      'choose "svc.deploy.PasswordAuthentication" in "authentication" and add users with ' +
      '"svc user add", serve the API on 127.0.0.1, or, to serve the demo anyway, set ' +
      "allow_insecure_demo_sign_in = true in [api] (env SVC_API_ALLOW_INSECURE_DEMO_SIGN_IN=true)",
  );
  class MyDemo extends SvcDemoAuthentication {}
  assert.ok(exposedDemo(exposed, MyDemo), "a class that extends the demo is the demo");
  assert.equal(exposedDemo(exposed, PasswordAuthentication), undefined);
  const local = Config.from({}, { env: {} });
  assert.equal(exposedDemo(local, SvcDemoAuthentication), undefined);
  const allowed = Config.from({ api: { hostname: "0.0.0.0" } }, {
    env: { SVC_API_ALLOW_INSECURE_DEMO_SIGN_IN: "true" },
  });
  assert.equal(exposedDemo(allowed, SvcDemoAuthentication), undefined);
});

Deno.test("serveApi() refuses the demo sign-in on every interface, and serves it when allowed", async () => {
  await using dir = await tmpDir();
  const port = freePort();
  const values = { local_root: dir.path, api: { hostname: "0.0.0.0", port } };
  await assert.rejects(
    serveApi(Config.from(values, { env: {} }), { log: () => {} }),
    /^SvcError: The demo sign-in \("svc\.deploy\.SvcDemoAuthentication"\) lets anyone who reaches 0\.0\.0\.0:\d+ log in as any user/,
  );
  // Refused before anything was opened or bound: the port is free, the local root empty.
  assert.deepEqual([...Deno.readDirSync(dir.path)], []);
  const allowed = Config.from({
    ...values,
    api: { ...values.api, allow_insecure_demo_sign_in: true },
  }, { env: {} });
  const stop = new AbortController();
  const api = await serveApi(allowed, { log: () => {}, signal: stop.signal });
  try {
    assert.equal(
      (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.json())).status,
      "ok",
    );
  } finally {
    stop.abort();
    await api.finished;
  }
});
