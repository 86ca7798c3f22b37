import assert from "node:assert/strict";
import { freePort } from "../_process.ts";
import { FIXTURES, tmpDir } from "../test_utils.ts";
import { run as runCli } from "../../cli/mod.ts";
import { capture } from "./_io.ts";
import { loginHeaders, poster, startApi, uploadDocument } from "./_api_process.ts";
import { connectMcpStdio } from "./_mcp_stdio.ts";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { integration } from "../_tier.ts";

type Text = { type: string; text: string }[];

integration.test("svc mcp over stdio and POST /mcp of svc api serve an API key's user: tools, a resource, tool errors, and refuse the key once revoked", async () => {
  await using dir = await tmpDir();
  const port = freePort();
  const config = `${dir.path}/svc.toml`;
  await Deno.writeTextFile(config, `local_root = "root"\n[api]\nport = ${port}\n`);

  // The chat and the key are made through the REST API, which shares the database.
  await using api = await startApi(config, port);
  const { base } = api;
  const auth = await loginHeaders(base);
  const post = poster(base, auth);
  const bytes = await Deno.readFile(`${FIXTURES}report.pdf`);
  const document = await uploadDocument(base, auth, "report.pdf", bytes);
  const demoChat = (name: string) =>
    post("/chats", {
      name,
      source_storage: "Svc/DemoSourceStorage",
      assistant: "Svc/DemoAssistant",
      params: {},
      documents: [document],
    });
  const chat = await demoChat("mcp");
  assert.equal((await post(`/chats/${chat.id}/prepare`)).role, "system");
  const unprepared = await demoChat("later");
  const { id: keyId, key } = await post("/api-keys", { name: "desktop" });

  // Each client is put through the same calls.
  const exercise = async (client: Client) => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool: { name: string }) => tool.name).sort(), [
      "ask",
      "list_chats",
      "search",
    ]);

    const listed = await client.callTool({ name: "list_chats", arguments: {} });
    const { chats } = JSON.parse((listed.content as Text)[0]!.text);
    assert.deepEqual(
      chats.map((c: { id: string; prepared: boolean }) => [c.id, c.prepared]).sort(),
      [[chat.id, true], [unprepared.id, false]].sort(),
    );

    const found = await client.callTool({
      name: "search",
      arguments: { question: "What is the report about?", chat_id: chat.id, limit: 2 },
    });
    assert.equal(found.isError, undefined);
    const { passages } = JSON.parse((found.content as Text)[0]!.text);
    assert.ok(passages.length >= 1 && passages.length <= 2, JSON.stringify(passages));
    assert.equal(passages[0].rank, 1);
    assert.deepEqual(passages[0].document, { id: document.id, name: "report.pdf" });
    assert.equal(passages[0].pages, "page 1");
    assert.ok(passages[0].text.length > 0);

    const asked = await client.callTool({
      name: "ask",
      arguments: { question: "What is the report about?", chat_id: chat.id },
    });
    assert.equal(asked.isError, undefined);
    const { answer, sources } = JSON.parse((asked.content as Text)[0]!.text);
    assert.ok(answer.length > 0);
    assert.deepEqual(sources[0].document, { id: document.id, name: "report.pdf" });
    assert.equal(sources[0].pages, "page 1");
    const stored = await (await fetch(`${base}/chats/${chat.id}`, { headers: auth })).json();
    const [question, reply] = stored.messages.slice(-2);
    assert.deepEqual([question.role, question.content], ["user", "What is the report about?"]);
    assert.deepEqual([reply.role, reply.content], ["assistant", answer]);

    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r: { name: string }) => r.name), ["report.pdf"]);
    const read = await client.readResource({ uri: resources[0]!.uri });
    const text = (read.contents[0] as { text: string }).text;
    assert.match(text, /^--- page 1 ---\n/);
    assert.ok(text.includes(passages[0].text.slice(0, 20)), text);

    const empty = await client.callTool({
      name: "search",
      arguments: { question: "  ", chat_id: chat.id },
    });
    assert.equal(empty.isError, true);
    assert.match((empty.content as Text)[0]!.text, /question/);
    const tooMany = await client.callTool({
      name: "search",
      arguments: { question: "What is it about?", chat_id: chat.id, limit: 500 },
    });
    assert.equal(tooMany.isError, true);
    assert.match((tooMany.content as Text)[0]!.text, /limit/);
    const unknown = await client.callTool({
      name: "ask",
      arguments: { question: "What is it about?", chat_id: "no-such-chat" },
    });
    assert.equal(unknown.isError, true);
    assert.match((unknown.content as Text)[0]!.text, /no-such-chat/);
    const notPrepared = await client.callTool({
      name: "search",
      arguments: { question: "What is it about?", chat_id: unprepared.id },
    });
    assert.equal(notPrepared.isError, true);
    assert.match((notPrepared.content as Text)[0]!.text, /is not prepared: prepare it/);
  };

  await using mcp = await connectMcpStdio(config, { SVC_API_KEY: key! });
  await exercise(mcp.client);
  // A desktop client ends svc mcp by closing its standard input.
  await mcp.client.close();
  const ended = await mcp.child.ended;
  assert.equal(ended.code, 0, ended.stderr);
  const messages = async () =>
    (await (await fetch(`${base}/chats/${chat.id}`, { headers: auth })).json()).messages;
  assert.equal((await messages()).length, 3);

  const http = new Client({ name: "svc-tests", version: "1.0.0" });
  await http.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  try {
    await exercise(http);
  } finally {
    await http.close();
  }
  assert.equal((await messages()).length, 5);
  const anonymous = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  assert.equal(anonymous.status, 401);
  assert.match((await anonymous.json()).error.message, /./);

  // A revoked key is refused at once on both.
  const revoked = await fetch(`${base}/api-keys/${keyId}`, { method: "DELETE", headers: auth });
  assert.equal(revoked.status, 200, await revoked.text());
  const refused = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  assert.equal(refused.status, 401);
  await refused.body?.cancel();
  const io = capture();
  assert.equal(await runCli(["mcp", "-c", config], io, { env: { SVC_API_KEY: key! } }), 1);
  assert.match(io.stderr, /API key is not valid/);
});

Deno.test("svc mcp refuses to start without a valid SVC_API_KEY, saying how to get one", async () => {
  await using dir = await tmpDir();
  const config = `${dir.path}/svc.toml`;
  await Deno.writeTextFile(config, `local_root = "root"\n`);
  for (const key of [undefined, "svc_" + "x".repeat(43)]) {
    const io = capture();
    const code = await runCli(["mcp", "-c", config], io, {
      env: key === undefined ? {} : { SVC_API_KEY: key },
    });
    assert.equal(code, 1);
    assert.match(io.stderr, key === undefined ? /SVC_API_KEY is not set/ : /API key is not valid/);
  }
});
