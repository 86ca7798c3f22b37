import assert from "node:assert/strict";
import { denoArgs, freePort, MAIN, run } from "../_process.ts";
import { FIXTURES, tmpDir } from "../test_utils.ts";
import { run as runCli } from "../../cli/mod.ts";
import { pause, waitFor } from "../rely/_server.ts";
import { capture } from "./_io.ts";
import { loginHeaders, poster, startApi, uploadDocument } from "./_api_process.ts";
import { integration } from "../_tier.ts";

integration.test("svc api serves a whole chat to a plain HTTP client, and answers after a restart", async () => {
  await using dir = await tmpDir();
  const port = freePort();
  const config = `${dir.path}/svc.toml`;
  await Deno.writeTextFile(config, `local_root = "root"\n[api]\nport = ${port}\n`);

  await using before = await startApi(config, port);
  const { base } = before;
  const auth = await loginHeaders(base);
  const post = poster(base, auth);

  const bytes = await Deno.readFile(`${FIXTURES}report.pdf`);
  const document = await uploadDocument(base, auth, "report.pdf", bytes);
  assert.equal(document.name, "report.pdf");

  const chat = await post("/chats", {
    name: "restart",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [document],
  });
  assert.equal((await post(`/chats/${chat.id}/prepare`)).role, "system");
  const stopped = await before.stop();
  assert.equal(stopped.code, 0, stopped.stderr);

  await using after = await startApi(config, port);
  try {
    const response = await fetch(`${base}/chats/${chat.id}/answer`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ prompt: "What is it about?", stream: true }),
    });
    assert.equal(response.headers.get("content-type"), "application/x-ndjson");
    const [first] = (await response.text()).trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.equal(first.sources[0].document.name, "report.pdf");
    assert.equal(first.sources[0].location, "page 1");
    const stored = await (await fetch(`${base}/chats/${chat.id}`, { headers: auth })).json();
    assert.deepEqual(stored.messages.map((m: { role: string }) => m.role), [
      "system",
      "user",
      "assistant",
    ]);
  } finally {
    const { code } = await after.stop();
    assert.equal(code, 0);
  }
});

integration.test("svc api refuses an unknown class path in the configuration, naming it", async () => {
  await using dir = await tmpDir();
  const config = `${dir.path}/svc.toml`;
  await Deno.writeTextFile(config, `assistants = ["svc.assistants.Gpt4"]\n`);
  const { code, stderr } = await run(
    Deno.execPath(),
    denoArgs("run", "-A", MAIN, "api", "-c", config),
  );
  assert.equal(code, 1);
  assert.match(
    stderr,
    /Unknown class path "svc\.assistants\.Gpt4" in "assistants"/,
  );
});

integration.test("svc api refuses to start with SVC_PDF_WORKERS that is not a positive whole number", async () => {
  await using dir = await tmpDir();
  const config = `${dir.path}/svc.toml`;
  await Deno.writeTextFile(config, `local_root = "${dir.path}"\n`);
  const { code, stderr } = await run(
    Deno.execPath(),
    denoArgs("run", "-A", MAIN, "api", "-c", config),
    { env: { SVC_PDF_WORKERS: "all" } },
  );
  assert.equal(code, 1);
  assert.match(stderr, /SVC_PDF_WORKERS must be a positive whole number, not "all"/);
});

integration.test("svc api refuses to start with a reader setting that is not a positive number", async () => {
  await using dir = await tmpDir();
  const config = `${dir.path}/svc.toml`;
  await Deno.writeTextFile(config, `local_root = "${dir.path}"\n`);
  const settings: [string, string, RegExp][] = [
    ["SVC_READERS", "0", /SVC_READERS must be a positive whole number, not "0"/],
    ["SVC_READER_HEAP_MB", "1.5", /SVC_READER_HEAP_MB must be a positive whole number, not "1.5"/],
    [
      "SVC_READER_TIMEOUT",
      "soon",
      /SVC_READER_TIMEOUT must be a positive number of seconds, not "soon"/,
    ],
  ];
  for (const [name, value, message] of settings) {
    const { code, stderr } = await run(
      Deno.execPath(),
      denoArgs("run", "-A", MAIN, "api", "-c", config),
      { env: { [name]: value } },
    );
    assert.equal(code, 1, name);
    assert.match(stderr, message);
  }
});

integration.test("svc api without a configuration says how to make one", async () => {
  await using dir = await tmpDir();
  const { code, stderr } = await run(Deno.execPath(), denoArgs("run", "-A", MAIN, "api"), {
    cwd: dir.path,
    env: { SVC_CONFIG: "" },
  });
  assert.equal(code, 1);
  assert.match(stderr, /No configuration found: .*svc init/);
});

Deno.test("svc api refuses the demo sign-in on 0.0.0.0, and serves it with --allow-insecure-demo-sign-in", async () => {
  await using dir = await tmpDir();
  const port = freePort();
  const config = `${dir.path}/svc.toml`;
  await Deno.writeTextFile(
    config,
    `local_root = "root"\n[api]\nhostname = "0.0.0.0"\nport = ${port}\n`,
  );
  const refused = capture();
  assert.equal(await runCli(["api", "-c", config], refused, { env: {} }), 1);
  assert.match(
    refused.stderr,
    /^error: The demo sign-in \("svc\.deploy\.SvcDemoAuthentication"\) lets anyone who reaches 0\.0\.0\.0:\d+ log in as any user, so it is refused on an address other than loopback: .*allow_insecure_demo_sign_in = true in \[api\]/m,
  );

  const stop = new AbortController();
  const io = capture();
  const running = runCli(["api", "-c", config, "--allow-insecure-demo-sign-in"], io, {
    env: {},
    signal: stop.signal,
  });
  try {
    // A guard against a start that never ends, generous for a machine under load.
    await waitFor("the API to answer", async () => {
      const response = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
      await response?.body?.cancel();
      return response?.ok || undefined;
    }, 120_000);
  } catch (error) {
    // What svc said, or that it has not ended, tells a slow start from a stuck one.
    const ended = await Promise.race([running.then((code) => `ended with ${code}`), pause(0)]);
    throw new Error(`${(error as Error).message} (${ended ?? "still running"}): ${io.stderr}`);
  } finally {
    stop.abort();
  }
  assert.equal(await running, 0, io.stderr);
  assert.match(io.stderr, /SvcDemoAuthentication is for demos only/);
});
