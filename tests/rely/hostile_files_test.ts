/**
 * Hostile documents against a real `svc api` process: each file that once stopped svc for every
 * user, made here, sent through an upload and every path that parses it (`GET
 * /documents/{id}/pages`, a prepare with LibSQL and with the demo storage, MCP's
 * `resources/read`), must end in a 422 that names the document and what it passed, while another
 * user's `/health` and `GET /chats` are answered, and the process lives on. The reader threads'
 * heap cap and deadline are set low, so that the attacks that pass them end soon.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client as McpClient } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { freePort, startProcess } from "../_process.ts";
import { tmpDir } from "../test_utils.ts";
import { flateStream, page, pages, refs } from "../documents/pdf/_make.ts";
import { failures } from "./_checks.ts";
import { drawing, issueFiles, wordOf } from "./_hostile_files.ts";
import { Client, type Svc } from "./_server.ts";
import { integration } from "../_tier.ts";

const MiB = 2 ** 20;

/** `svc api` with LibSQL and the demo storage, the demo assistant, and the environment given. */
async function startReaders(dir: string, env: Record<string, string>): Promise<Svc> {
  const port = freePort();
  const config = join(dir, "svc.toml");
  await Deno.writeTextFile(
    config,
    [
      'local_root = "root"',
      'source_storages = ["svc.source_storages.LibSQL", "svc.source_storages.SvcDemoSourceStorage"]',
      'assistants = ["svc.assistants.SvcDemoAssistant"]',
      "[api]",
      'hostname = "127.0.0.1"',
      `port = ${port}`,
      "",
    ].join("\n"),
  );
  const base = `http://127.0.0.1:${port}`;
  const svc = await startProcess(["api", "-c", config], { health: base, env });
  return Object.assign(svc, { base, root: join(dir, "root") });
}

/**
 * Sends `request` and asks `/health` and, as `bystander`, `GET /chats` until it is answered:
 * both must answer, at least once before the attack's own answer. Returns the attack's answer.
 */
async function whileAttacked(
  svc: Svc,
  bystander: Client,
  request: () => Promise<Response>,
): Promise<Response> {
  let answered = false;
  const attack = request().finally(() => answered = true);
  let during = 0;
  while (!answered) {
    const [health, chats] = await Promise.all([
      fetch(`${svc.base}/health`),
      bystander.request("GET", "/chats"),
    ]);
    assert.equal(health.status, 200);
    assert.equal(chats.status, 200);
    assert.ok(Array.isArray(await chats.json()));
    await health.body?.cancel();
    if (!answered) during++;
  }
  assert.ok(during > 0, "another user was answered while the attack ran");
  return await attack;
}

/** Asserts a 422 whose message is `Cannot read "<name>": <problem>`. */
async function refused(response: Response, name: string, problem: string): Promise<void> {
  const body = await response.json();
  assert.equal(response.status, 422, JSON.stringify(body));
  assert.equal(body.error.message, `Cannot read ${JSON.stringify(name)}: ${problem}`);
}

/**
 * Uploads the file as `attacker` and reads it every way svc parses a document, each while
 * `bystander` is answered; its content is still served as it was uploaded.
 */
async function attack(
  svc: Svc,
  { attacker, bystander }: { attacker: Client; bystander: Client },
  file: { name: string; bytes: Uint8Array<ArrayBuffer>; problem: string },
): Promise<{ id: string; name: string }> {
  const { name, bytes, problem } = file;
  const document = await attacker.upload(name, bytes);
  const pages = await whileAttacked(
    svc,
    bystander,
    () => attacker.request("GET", `/documents/${document.id}/pages`),
  );
  await refused(pages, name, problem);
  for (const storage of ["LibSQL", "Svc/DemoSourceStorage"]) {
    const chat = await attacker.call("POST", "/chats", {
      name: `${name} in ${storage}`,
      source_storage: storage,
      assistant: "Svc/DemoAssistant",
      params: {},
      documents: [document],
    });
    const prepared = await whileAttacked(
      svc,
      bystander,
      () => attacker.request("POST", `/chats/${chat.id}/prepare`),
    );
    await refused(prepared, name, problem);
  }
  const content = await attacker.request("GET", `/documents/${document.id}/content`);
  assert.equal(content.status, 200);
  assert.deepEqual(new Uint8Array(await content.arrayBuffer()), bytes);
  return document;
}

integration.test("hostile documents end in a 422 naming what they passed, on every path that parses them, while other users are answered", async () => {
  await using dir = await tmpDir();
  await using svc = await startReaders(dir.path, {
    SVC_READER_HEAP_MB: "256",
    SVC_READER_TIMEOUT: "60",
  });
  const [attacker, bystander] = await Promise.all([
    Client.login(svc.base, "mallory"),
    Client.login(svc.base, "ada"),
  ]);
  await bystander.call("POST", "/chats", {
    name: "mine",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [await bystander.upload("notes.md", "# Notes\n")],
  });
  const users = { attacker, bystander };
  const [paragraphs, ...others] = issueFiles();
  const files = [
    paragraphs!,
    {
      // Within every count, and still more than the reader's heap.
      name: "heavy.docx",
      bytes: wordOf(199_000),
      problem: "reading it needs more than 256 MiB of memory",
    },
    ...others,
  ];
  const documents = [];
  for (const file of files) documents.push(await attack(svc, users, file));

  // MCP's resources/read takes the same path.
  const mcp = new McpClient({ name: "svc-tests", version: "1.0.0" });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${attacker.token}` } },
    }),
  );
  try {
    const [repeated] = documents.filter((document) => document.name === "repeated.pdf");
    await assert.rejects(
      mcp.readResource({ uri: `svc://documents/${repeated!.id}` }),
      /Cannot read "repeated\.pdf": its page tree lists one page more than 100 times/,
    );
  } finally {
    await mcp.close();
  }

  assert.equal((await fetch(`${svc.base}/health`)).status, 200);
  assert.deepEqual(failures(svc), []);
});

integration.test("a document whose reading passes the deadline ends in a 422, and the server reads the next", async () => {
  await using dir = await tmpDir();
  await using svc = await startReaders(dir.path, { SVC_READER_TIMEOUT: "1" });
  const [attacker, bystander] = await Promise.all([
    Client.login(svc.base, "mallory"),
    Client.login(svc.base, "ada"),
  ]);
  // 250 pages of a megabyte of operators each: minutes of work before the direct reader would stop.
  const count = 250;
  const bytes = pages(refs(count, 4), count, [
    ...Array(count).fill(page(`${4 + count} 0 R`)),
    flateStream(drawing(MiB - 64)),
  ]);
  await attack(svc, { attacker, bystander }, {
    name: "slow.pdf",
    bytes,
    problem: "reading it takes longer than 1 second",
  });
  const notes = await attacker.upload("notes.md", "# Notes\n");
  assert.deepEqual(await attacker.call("GET", `/documents/${notes.id}/pages`), {
    pages: [{ number: null, text: "# Notes\n" }],
  });
  assert.deepEqual(failures(svc), []);
});
