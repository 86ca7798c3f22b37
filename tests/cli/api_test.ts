import assert from "node:assert/strict";
import { denoArgs, freePort, MAIN, run } from "../_process.ts";
import { FIXTURES, tmpDir } from "../test_utils.ts";
import { loginHeaders, startApi, uploadDocument } from "./_api_process.ts";

Deno.test("svc api serves a whole chat to a plain HTTP client, and answers after a restart", async () => {
  await using dir = await tmpDir();
  const port = freePort();
  const config = `${dir.path}/svc.toml`;
  await Deno.writeTextFile(config, `local_root = "root"\n[api]\nport = ${port}\n`);

  await using before = await startApi(config, port);
  const { base } = before;
  const auth = await loginHeaders(base);
  const post = async (path: string, body?: unknown) =>
    await (await fetch(`${base}${path}`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify(body),
    })).json();

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

Deno.test("svc api refuses an unknown class path in the configuration, naming it", async () => {
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

Deno.test("svc api without a configuration says how to make one", async () => {
  await using dir = await tmpDir();
  const { code, stderr } = await run(Deno.execPath(), denoArgs("run", "-A", MAIN, "api"), {
    cwd: dir.path,
    env: { SVC_CONFIG: "" },
  });
  assert.equal(code, 1);
  assert.match(stderr, /No configuration found: .*svc init/);
});
