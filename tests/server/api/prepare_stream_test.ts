import assert from "node:assert/strict";
import { SourceStorage } from "../../../components/core/component.ts";
import type { Document } from "../../../components/core/document.ts";
import type { ChatParams } from "../../../components/core/params.ts";
import type { Source } from "../../../components/core/source.ts";
import { LibSQL } from "../../../components/source_storages/libsql.ts";
import { cancelWhenLeft } from "../../../server/api/prepare_stream.ts";
import { tmpLocalRoot } from "../../test_utils.ts";
import { type TestApi, testApi } from "./_api.ts";

const NDJSON = { accept: "application/x-ndjson" };

/** A source storage that stores one document at a time and waits for `release` between them. */
class GatedStorage extends SourceStorage {
  static override displayName = "Test/Gated";
  stored = new Set<string>();
  started = Promise.withResolvers<void>();
  release = Promise.withResolvers<void>();
  override async store(documents: Document[], params: ChatParams): Promise<void> {
    for (const document of documents) {
      params.progress?.({ document, stage: "reading" });
      this.started.resolve();
      await new Promise<void>((resolve, reject) => {
        this.release.promise.then(() => resolve());
        params.signal.addEventListener("abort", () => reject(params.signal.reason), {
          once: true,
        });
      });
      this.stored.add(document.id);
      params.progress?.({ document, stage: "indexed", chunks: 1 });
    }
  }
  override retrieve(): Source[] {
    return [];
  }
  override delete(): void {
    this.stored.clear();
  }
}

function chatOver(documents: unknown[], sourceStorage = "LibSQL") {
  return {
    name: "Chat",
    source_storage: sourceStorage,
    assistant: "Svc/DemoAssistant",
    params: {},
    documents,
  };
}

async function lines(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  return text.split("\n").filter(Boolean).map((line) => JSON.parse(line));
}

async function createChat(api: TestApi, documents: unknown[], storage?: string) {
  return await (await api.call("POST", "/chats", chatOver(documents, storage))).json();
}

Deno.test("POST /chats/{id}/prepare with Accept: application/x-ndjson streams each document's steps, then the welcome message", async () => {
  await using _root = await tmpLocalRoot();
  await using api = await testApi({ sourceStorages: [new LibSQL()] });
  const { document: a } = await api.upload("a.md", "# A\n\nApples are red.\n");
  const { document: b } = await api.upload("b.txt", "Bananas are yellow.\n\nThey bend.");
  const chat = await createChat(api, [a, b]);
  const response = await api.call("POST", `/chats/${chat.id}/prepare`, undefined, NDJSON);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "application/x-ndjson");
  const all = await lines(response);
  const welcome = all.at(-1)!;
  assert.equal(welcome.role, "system");
  assert.equal(welcome.content, "How can I help you with the documents?");
  const steps = all.slice(0, -1).map((line) => line.progress as Record<string, unknown>);
  for (const document of [a, b]) {
    const own = steps.filter((step) => (step.document as { id: string }).id === document.id);
    assert.deepEqual(own.map((step) => step.stage), ["reading", "parsed", "indexed"]);
    assert.deepEqual(own[0]!.document, { id: document.id, name: document.name });
    assert.equal(own[1]!.pages, 1);
    assert.ok((own[2]!.chunks as number) >= 1);
  }
  const stored = await (await api.call("GET", `/chats/${chat.id}`)).json();
  assert.equal(stored.prepared, true);
  assert.deepEqual(stored.messages.map((m: { id: string }) => m.id), [welcome.id]);

  // A chat over the same document reuses its index: it is reported indexed at once.
  const again = await createChat(api, [a]);
  const reused = await lines(
    await api.call("POST", `/chats/${again.id}/prepare`, undefined, NDJSON),
  );
  assert.deepEqual(
    reused.slice(0, -1).map((line) => (line.progress as { stage: string }).stage),
    ["reading", "indexed"],
  );
});

Deno.test("POST /chats/{id}/prepare without the Accept header answers with the welcome message alone", async () => {
  await using api = await testApi();
  const { document } = await api.upload("a.md", "# A\n");
  const chat = await createChat(api, [document], "Svc/DemoSourceStorage");
  const response = await api.call("POST", `/chats/${chat.id}/prepare`);
  assert.equal(response.headers.get("content-type"), "application/json");
  const welcome = await response.json();
  assert.deepEqual(Object.keys(welcome).filter((key) => key !== "citations"), [
    "id",
    "content",
    "role",
    "sources",
    "timestamp",
  ]);
});

Deno.test("POST /chats/{id}/prepare streams the failure of a document that cannot be read, naming it, and leaves the chat unprepared", async () => {
  await using _root = await tmpLocalRoot();
  await using api = await testApi({ sourceStorages: [new LibSQL()] });
  const { document: good } = await api.upload("good.md", "# Good\n\nFine text.\n");
  const { document: bad } = await api.upload("bad.pdf", "this is no PDF");
  const chat = await createChat(api, [good, bad]);
  const all = await lines(await api.call("POST", `/chats/${chat.id}/prepare`, undefined, NDJSON));
  const failed = all.find((line) => (line.progress as { stage?: string })?.stage === "failed");
  assert.ok(failed, JSON.stringify(all));
  const progress = failed.progress as { document: { name: string }; error: string };
  assert.equal(progress.document.name, "bad.pdf");
  assert.match(progress.error, /bad\.pdf/);
  const last = all.at(-1) as { error?: { message: string } };
  assert.match(last.error!.message, /bad\.pdf/);
  const stored = await (await api.call("GET", `/chats/${chat.id}`)).json();
  assert.equal(stored.prepared, false);
});

Deno.test("POST /chats/{id}/prepare stops when its client leaves: the chat stays unprepared and nothing is kept", async () => {
  const storage = new GatedStorage();
  await using api = await testApi({ sourceStorages: [storage] });
  const { document: a } = await api.upload("a.md", "# A\n");
  const { document: b } = await api.upload("b.md", "# B\n");
  const chat = await createChat(api, [a, b], "Test/Gated");
  const leave = new AbortController();
  const response = await api.app.request(`http://svc.test/chats/${chat.id}/prepare`, {
    method: "POST",
    headers: { ...NDJSON, authorization: `Bearer ${await token(api)}` },
    signal: leave.signal,
  });
  assert.equal(response.status, 200);
  const reader = response.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  assert.match(first, /"stage":"reading"/);
  // The first document is stored, the client leaves during the second.
  storage.release.resolve();
  storage.release = Promise.withResolvers();
  await until(() => storage.stored.has(a.id));
  leave.abort();
  await reader.cancel();
  await until(() => storage.stored.size === 0);
  const stored = await (await api.call("GET", `/chats/${chat.id}`)).json();
  assert.equal(stored.prepared, false);
  assert.deepEqual(stored.messages, []);
});

/** A token of the test user, for a request made without the test client. */
async function token(api: TestApi): Promise<string> {
  const response = await api.app.request("http://svc.test/token", {
    method: "POST",
    body: new URLSearchParams({ username: "ada", password: "ada" }),
  });
  return await response.json();
}

/** Waits until `condition` holds; the deadline only guards against a hang. */
async function until(condition: () => boolean, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error("Timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

Deno.test("cancelWhenLeft() aborts when the request's signal does, until released", () => {
  const left = new AbortController();
  const request = new Request("http://svc.test/", { signal: left.signal });
  const cancel = new AbortController();
  const release = cancelWhenLeft(request, cancel);
  left.abort();
  assert.equal(cancel.signal.aborted, true);
  assert.equal((cancel.signal.reason as { status: number }).status, 499);

  const later = new AbortController();
  const released = new AbortController();
  cancelWhenLeft(new Request("http://svc.test/", { signal: later.signal }), released)();
  later.abort();
  assert.equal(released.signal.aborted, false, "a released watch does nothing");
  release();

  const gone = new AbortController();
  gone.abort();
  const already = new AbortController();
  cancelWhenLeft(new Request("http://svc.test/", { signal: gone.signal }), already);
  assert.equal(already.signal.aborted, true, "a client that left already cancels at once");
});
