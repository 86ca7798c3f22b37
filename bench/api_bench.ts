/**
 * The REST API against a bare `Deno.serve` answering the same bytes, in the
 * same run: the ratio is what svc adds (routing, authentication, the
 * database, JSON) to a request and to each chunk of a streamed answer.
 */
import { Assistant } from "../components/core/component.ts";
import { Rag } from "../components/rag.ts";
import { SvcDemoSourceStorage } from "../components/source_storages/demo.ts";
import { createApi } from "../server/api/app.ts";
import { SvcDemoAuthentication } from "../server/auth/demo.ts";
import { Sessions } from "../server/auth/sessions.ts";
import { openDatabase } from "../server/database/mod.ts";
import type { ChatRecord } from "../server/database/mod.ts";
import { UploadTokens } from "../server/upload_token.ts";

const CHUNKS = 100;

class Counting extends Assistant {
  override *answer() {
    for (let i = 0; i < CHUNKS; i++) yield `word${i} `;
  }
}

const root = await Deno.makeTempDir({ prefix: "svc-bench-" });
const database = await openDatabase(`sqlite:///${root}/svc.db`, { localRoot: root });
const authentication = new SvcDemoAuthentication();
await authentication.setUp({
  sessions: new Sessions({ database, key: "b".repeat(32) }),
  database,
  warn: () => {},
});
const app = createApi({
  url: "http://127.0.0.1",
  localRoot: root,
  database,
  authentication,
  sourceStorages: [new SvcDemoSourceStorage()],
  assistants: [new Counting()],
  rag: new Rag(),
  uploadTokens: new UploadTokens(),
  maxUploadSize: 1024 * 1024,
  log: () => {},
});
const svc = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
const svcUrl = `http://127.0.0.1:${svc.addr.port}`;

async function tokenFor(user: string): Promise<string> {
  const response = await fetch(`${svcUrl}/token`, {
    method: "POST",
    body: new URLSearchParams({ username: user, password: user }),
  });
  return await response.json();
}

// 100 chats of 10 messages for one user, listed by GET /chats.
const reader = { authorization: `Bearer ${await tokenFor("reader")}` };
const document = { id: crypto.randomUUID(), name: "report.md" };
await Deno.writeTextFile(`${root}/report.md`, "# Report\n\nThe figures grew.\n");
await database.addDocument("reader", { ...document, metadata: { path: `${root}/report.md` } });
for (let c = 0; c < 100; c++) {
  const chat: ChatRecord = {
    id: crypto.randomUUID(),
    metadata: {
      name: `Chat ${c}`,
      source_storage: "Svc/DemoSourceStorage",
      assistant: "Counting",
      params: {},
      documents: [document],
    },
    messages: [],
    prepared: true,
  };
  await database.addChat("reader", chat);
  await database.addMessages(
    "reader",
    chat.id,
    Array.from({ length: 10 }, (_, m) => ({
      id: crypto.randomUUID(),
      content: `Message ${m} of chat ${c}, about as long as a short answer is. `.repeat(4),
      role: m % 2 ? "assistant" : "user",
      sources: [],
      timestamp: new Date().toISOString(),
      citations: [],
    })),
  );
}
const chatsBytes = new Uint8Array(
  await (await fetch(`${svcUrl}/chats`, { headers: reader })).arrayBuffer(),
);

// A prepared chat for streamed answers, and the bytes such an answer is.
const writer = { authorization: `Bearer ${await tokenFor("writer")}` };
const json = { ...writer, "content-type": "application/json" };
const written = { id: crypto.randomUUID(), name: document.name };
await database.addDocument("writer", { ...written, metadata: { path: `${root}/report.md` } });
const created = await (await fetch(`${svcUrl}/chats`, {
  method: "POST",
  headers: json,
  body: JSON.stringify({
    name: "stream",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Counting",
    params: {},
    documents: [written],
  }),
})).json();
await (await fetch(`${svcUrl}/chats/${created.id}/prepare`, { method: "POST", headers: writer }))
  .body?.cancel();
const answerRequest = { method: "POST", headers: json, body: '{"prompt":"?","stream":true}' };
const streamLines = (await (await fetch(`${svcUrl}/chats/${created.id}/answer`, answerRequest))
  .text()).split(/(?<=\n)/);

const bare = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
  if (new URL(request.url).pathname === "/chats") {
    return new Response(chatsBytes, { headers: { "content-type": "application/json" } });
  }
  const encoder = new TextEncoder();
  const body = new ReadableStream({
    start(controller) {
      for (const line of streamLines) controller.enqueue(encoder.encode(line));
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "application/x-ndjson" } });
});
const bareUrl = `http://127.0.0.1:${bare.addr.port}`;

Deno.bench({
  name: "bare Deno.serve, the same bytes (reference)",
  group: "GET /chats (100 chats of 10 messages)",
  baseline: true,
  async fn() {
    await (await fetch(`${bareUrl}/chats`)).arrayBuffer();
  },
});

Deno.bench({
  name: "svc GET /chats",
  group: "GET /chats (100 chats of 10 messages)",
  async fn() {
    await (await fetch(`${svcUrl}/chats`, { headers: reader })).arrayBuffer();
  },
});

Deno.bench({
  name: `bare Deno.serve, ${CHUNKS} JSON lines (reference)`,
  group: `streamed answer of ${CHUNKS} chunks`,
  baseline: true,
  async fn() {
    await (await fetch(`${bareUrl}/answer`, { method: "POST" })).arrayBuffer();
  },
});

Deno.bench({
  name: `svc POST /chats/{id}/answer, ${CHUNKS} chunks`,
  group: `streamed answer of ${CHUNKS} chunks`,
  async fn() {
    await (await fetch(`${svcUrl}/chats/${created.id}/answer`, answerRequest)).arrayBuffer();
  },
});

globalThis.addEventListener("unload", () => {
  Deno.removeSync(root, { recursive: true });
});
