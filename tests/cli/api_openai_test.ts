import assert from "node:assert/strict";
import { FakeServer } from "../assistants/_fake_server.ts";
import { firstTextPieces, openaiFake } from "../assistants/_providers.ts";
import { FIXTURES, tmpDir } from "../test_utils.ts";
import { freePort } from "../_process.ts";
import { loginHeaders, startApi, uploadDocument } from "./_api_process.ts";
import { integration } from "../_tier.ts";

const WORDS = ["The", " secret", " ingredient", " is", " cardamom", " [1]."];

integration.test("svc api with svc.assistants.OpenAI streams an OpenAI-compatible server's tokens as JSON Lines", async () => {
  // The pieces after the first word's are held until its line is here.
  const held = Promise.withResolvers<void>();
  const gate = { after: firstTextPieces(openaiFake, WORDS), open: held.promise };
  await using fake = new FakeServer([(server) => openaiFake.answer(server, WORDS, { gate })]);
  await using dir = await tmpDir();
  const port = freePort();
  const config = `${dir.path}/svc.toml`;
  await Deno.writeTextFile(
    config,
    `local_root = "root"\nassistants = ["svc.assistants.OpenAI"]\n[api]\nport = ${port}\n`,
  );
  await using api = await startApi(config, port, openaiFake.env(fake.url));
  const { base } = api;
  try {
    const headers = await loginHeaders(base);
    const components = await (await fetch(`${base}/components`, { headers })).json();
    const [assistant] = components.assistants;
    assert.equal(assistant.title, "OpenAI/gpt-test");
    assert.equal(assistant.properties.max_new_tokens.default, 256);

    const document = await uploadDocument(
      base,
      headers,
      "report.pdf",
      await Deno.readFile(`${FIXTURES}report.pdf`),
    );
    const chat = await (await fetch(`${base}/chats`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        name: "cardamom",
        source_storage: "Svc/DemoSourceStorage",
        assistant: "OpenAI/gpt-test",
        params: { max_new_tokens: 64 },
        documents: [document],
      }),
    })).json();
    await (await fetch(`${base}/chats/${chat.id}/prepare`, { method: "POST", headers })).body
      ?.cancel();

    const response = await fetch(`${base}/chats/${chat.id}/answer`, {
      method: "POST",
      headers,
      body: JSON.stringify({ prompt: "What is the secret ingredient?", stream: true }),
    });
    assert.equal(response.headers.get("content-type"), "application/x-ndjson");
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const sentWhenRead: number[] = [];
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      text += read.value;
      sentWhenRead.push(fake.feeds[0]!.sent);
      held.resolve();
    }
    const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((line) => line.content), WORDS);
    assert.equal(lines[0].sources[0].document.name, "report.pdf");
    assert.ok(lines.slice(1).every((line) => line.sources === null));
    assert.ok(
      sentWhenRead[0]! < fake.feeds[0]!.total,
      `the first line arrived before the server had sent everything (${sentWhenRead})`,
    );

    const asked = openaiFake.asked(fake.last);
    assert.equal(asked.model, "gpt-test");
    assert.equal(asked.maxTokens, 64);
    assert.equal(asked.stream, true);
    assert.match(String(asked.user), /What is the secret ingredient\?/);
    assert.match(String(asked.user), /report\.pdf/);
  } finally {
    assert.equal((await api.stop()).code, 0);
  }
});
