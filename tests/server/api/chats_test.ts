import assert from "node:assert/strict";
import { LocalDocument } from "../../../components/core/document.ts";
import { LibSQL } from "../../../components/source_storages/libsql.ts";
import { SvcDemoSourceStorage } from "../../../components/source_storages/demo.ts";
import { FIXTURES, tmpLocalRoot } from "../../test_utils.ts";
import { type TestApi, testApi } from "./_api.ts";

async function expectError(response: Response, status: number, message: string | RegExp) {
  assert.equal(response.status, status);
  const body = await response.json();
  assert.deepEqual(Object.keys(body), ["error"]);
  if (typeof message === "string") assert.equal(body.error.message, message);
  else assert.match(body.error.message, message);
}

/** The body of `POST /chats` over the documents, with the source storage and params given. */
function newChat(
  documents: unknown[],
  options: { name?: string; source_storage?: string; params?: Record<string, unknown> } = {},
) {
  return {
    name: options.name ?? "Chat",
    source_storage: options.source_storage ?? "Svc/DemoSourceStorage",
    assistant: "Svc/DemoAssistant",
    params: options.params ?? {},
    documents,
  };
}

async function chatIds(api: TestApi): Promise<string[]> {
  const chats = await (await api.call("GET", "/chats?messages=false")).json();
  return chats.map((chat: { id: string }) => chat.id);
}

Deno.test("POST /chats answers 422 naming chunk_size below its minimum and chunk_overlap not below it, storing nothing", async () => {
  await using api = await testApi({ sourceStorages: [new LibSQL(), new SvcDemoSourceStorage()] });
  const { document } = await api.upload("a.md", "# A\n");
  const chat = (params: Record<string, unknown>) =>
    api.call("POST", "/chats", newChat([document], { source_storage: "LibSQL", params }));
  await expectError(
    await chat({ chunk_size: 1 }),
    422,
    "The chat parameters have 1 problem:\n\nThese parameters have values that are not allowed:\n" +
      "- chunk_size = 1: must be at least 8",
  );
  await expectError(
    await chat({ chunk_size: 80 }),
    422,
    "The chat parameters have 1 problem:\n\nThese parameters have values that are not allowed:\n" +
      "- chunk_overlap = 100: must be less than chunk_size (80)",
  );
  await expectError(
    await chat({ chunk_size: 9000 }),
    422,
    /- chunk_size = 9000: must be at most 8192/,
  );
  await expectError(
    await chat({ num_tokens: 1_000_000_000 }),
    422,
    "The chat parameters have 1 problem:\n\nThese parameters have values that are not allowed:\n" +
      "- num_tokens = 1000000000: must be at most 32768 (SVC_MAX_NUM_TOKENS)",
  );
  assert.deepEqual(await chatIds(api), []);
  assert.equal((await chat({ chunk_size: 8, chunk_overlap: 7 })).status, 200);
});

Deno.test("GET /components shows the bounds of chunk_size and num_tokens", async () => {
  await using api = await testApi({ sourceStorages: [new LibSQL()] });
  const components = await (await api.call("GET", "/components")).json();
  const { chunk_size, num_tokens } = components.source_storages[0].properties;
  assert.deepEqual(chunk_size, {
    title: "Chunk Size",
    type: "integer",
    minimum: 8,
    maximum: 8192,
    default: 500,
  });
  assert.equal(num_tokens.maximum, 32768);
  assert.equal(num_tokens.default, 1536);
});

Deno.test("POST /chats/{id}/prepare refuses a document of more chunks than the limit, naming it", async () => {
  // The default limit, not one set in the environment, which test files running in parallel
  // share: chunks of 8 tokens that each repeat all but the last sentence of the one before make
  // about one chunk per sentence, counted before any is made.
  await using _root = await tmpLocalRoot();
  await using api = await testApi({ sourceStorages: [new LibSQL()] });
  const sentences = Array.from({ length: 12000 }, (_, i) => `w${i}.`).join(" ");
  const { document } = await api.upload("book.txt", sentences);
  const chat = await (await api.call(
    "POST",
    "/chats",
    newChat([document], { source_storage: "LibSQL", params: { chunk_size: 8, chunk_overlap: 7 } }),
  )).json();
  await expectError(
    await api.call("POST", `/chats/${chat.id}/prepare`),
    422,
    /^Cannot store "book\.txt": it would make \d+ chunks, more than the limit of 10000 per document: use a larger chunk_size, a smaller chunk_overlap, or split the document$/,
  );
  const stored = await (await api.call("GET", `/chats/${chat.id}`)).json();
  assert.equal(stored.prepared, false);
  assert.deepEqual(stored.messages, []);
});

Deno.test("POST /chats answers 429 past the chats one user may have, and stores nothing of it", async () => {
  await using api = await testApi({ maxChatsPerUser: 2 });
  const { document } = await api.upload("a.md", "# A\n");
  for (const name of ["one", "two"]) {
    assert.equal((await api.call("POST", "/chats", newChat([document], { name }))).status, 200);
  }
  const kept = await chatIds(api);
  await expectError(
    await api.call("POST", "/chats", newChat([document], { name: "three" })),
    429,
    "You have 2 chats, the most one user may have: delete a chat to create another",
  );
  assert.deepEqual(await chatIds(api), kept);

  await api.as("bob");
  const { document: bobs } = await api.upload("b.md", "# B\n");
  assert.equal((await api.call("POST", "/chats", newChat([bobs]))).status, 200);
  await api.as("ada");
  assert.equal((await api.call("DELETE", `/chats/${kept[0]}`)).status, 200);
  assert.equal(
    (await api.call("POST", "/chats", newChat([document], { name: "three" }))).status,
    200,
  );
});

Deno.test("POST /chats answers 422 for a chat name or a document name over 255 characters", async () => {
  await using api = await testApi();
  const { document } = await api.upload("a.md", "# A\n");
  await expectError(
    await api.call("POST", "/chats", newChat([document], { name: "é".repeat(256) })),
    422,
    'The body is not valid: "name": must be at most 255 characters',
  );
  await expectError(
    await api.call("POST", "/chats", newChat([{ id: document.id, name: "x".repeat(1_000_000) }])),
    422,
    'The body is not valid: "documents.0.name": must be at most 255 characters',
  );
  assert.deepEqual(await chatIds(api), []);
  const longest = await api.call("POST", "/chats", newChat([document], { name: "é".repeat(255) }));
  assert.equal(longest.status, 200);
});

Deno.test("GET /chats?messages=false lists chats without their messages; GET /chats keeps every message", async () => {
  await using api = await testApi();
  const { document } = await api.upload("a.md", "# A\n");
  const quiet = await (await api.call("POST", "/chats", newChat([document], { name: "quiet" })))
    .json();
  const busy = await (await api.call("POST", "/chats", newChat([document], { name: "busy" })))
    .json();
  await api.call("POST", `/chats/${busy.id}/prepare`);
  const answer = await (await api.call("POST", `/chats/${busy.id}/answer`, { prompt: "Why?" }))
    .json();

  const light = await (await api.call("GET", "/chats?messages=false")).json();
  assert.deepEqual(light, [
    {
      id: quiet.id,
      metadata: quiet.metadata,
      prepared: false,
      num_messages: 0,
      last_activity: null,
    },
    {
      id: busy.id,
      metadata: busy.metadata,
      prepared: true,
      num_messages: 3,
      last_activity: answer.timestamp,
    },
  ]);

  // The interface's shape stays the default, every message with its sources.
  for (const path of ["/chats", "/chats?messages=true"]) {
    const full = await (await api.call("GET", path)).json();
    assert.deepEqual(full.map((chat: { id: string }) => chat.id), [quiet.id, busy.id]);
    assert.deepEqual(full[1], await (await api.call("GET", `/chats/${busy.id}`)).json());
    assert.deepEqual(full[1].messages.map((m: { role: string }) => m.role), [
      "system",
      "user",
      "assistant",
    ]);
    assert.deepEqual(full[1].messages[2].sources, answer.sources);
  }
  await expectError(
    await api.call("GET", "/chats?messages=no"),
    422,
    'The query parameter "messages" must be "true" or "false", not "no"',
  );
});

Deno.test("the configured document class is what the API makes of each upload and each chat's documents", async () => {
  const made: string[] = [];
  class Shouting extends LocalDocument {
    constructor(options: ConstructorParameters<typeof LocalDocument>[0]) {
      super(options);
      made.push(this.name);
    }
    override async read(): Promise<Uint8Array> {
      const text = new TextDecoder().decode(await super.read());
      return new TextEncoder().encode(text.toUpperCase());
    }
  }
  await using api = await testApi({ document: Shouting });
  const { document, response } = await api.upload("quiet.md", "the meeting is on tuesday\n");
  assert.equal(response.status, 200);
  assert.deepEqual(made, ["quiet.md"]);
  const chat = await (await api.call("POST", "/chats", newChat([document]))).json();
  await api.call("POST", `/chats/${chat.id}/prepare`);
  const answer = await (await api.call("POST", `/chats/${chat.id}/answer`, { prompt: "When?" }))
    .json();
  assert.ok(made.length > 1, "the chat's documents are made of the class too");
  assert.ok(made.every((name) => name === "quiet.md"));
  assert.match(answer.sources[0].content, /THE MEETING IS ON TUESDAY/);
});

Deno.test("POST /chats/{id}/answer retrieves a follow-up with the chat's earlier questions", async () => {
  await using _root = await tmpLocalRoot();
  await using api = await testApi({ sourceStorages: [new LibSQL()] });
  const { document } = await api.upload(
    "kitchen.md",
    await Deno.readTextFile(`${FIXTURES}kitchen.md`),
  );
  const params = { chunk_size: 64, chunk_overlap: 0 };
  const ask = async (id: string, prompt: string) =>
    (await (await api.call("POST", `/chats/${id}/answer`, { prompt })).json()).sources[0].content;
  const chatOver = async () => {
    const chat = await (await api.call(
      "POST",
      "/chats",
      newChat([document], { source_storage: "LibSQL", params }),
    )).json();
    assert.equal((await api.call("POST", `/chats/${chat.id}/prepare`)).status, 200);
    return chat.id as string;
  };

  // Asked first, the follow-up finds only what its own words name.
  assert.match(await ask(await chatOver(), "And how do I undo that?"), /Ctrl\+Z/);
  // Each request makes the chat anew from the database: the earlier question comes from there.
  const id = await chatOver();
  assert.match(await ask(id, "How long can bread stay frozen?"), /Bread in the freezer/);
  assert.match(await ask(id, "And how do I undo that?"), /leave the frozen loaf on the counter/);
});
