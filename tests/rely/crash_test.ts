/**
 * Crash consistency: `svc api` is killed with SIGKILL in the middle of an
 * upload, a prepare, a streamed answer and a burst of writes; the files it
 * leaves must pass the checks of `_database.ts`, and after a restart on the
 * same files every confirmed write is there and the chats go on.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { denoArgs, freePort, spawn, startProcess } from "../_process.ts";
import { svcToml, tmpDir } from "../test_utils.ts";
import { numbered } from "./_components.ts";
import { temporaryUploads } from "./_checks.ts";
import { checkDatabase } from "./_database.ts";
import { Client, lines, pause, startSvc, type Svc, waitFor } from "./_server.ts";
import { integration } from "../_tier.ts";

/** A chat as `GET /chats` shows it, as far as these tests look. */
interface StoredChat {
  id: string;
  prepared: boolean;
  messages: { id: string; role: string; content: string }[];
}

const NOTES = "# Notes\n\nThe crash test reads this.\n";

/** Kills the process at once, as a crash would, and checks the files it leaves. */
async function crash(svc: Svc) {
  const status = await svc.stop("SIGKILL");
  assert.equal(status.signal, "SIGKILL", "the process was killed, not ended");
  return checkDatabase(join(svc.root, "svc.db"));
}

/** A multipart body with the token, then a file part that comes 64 KiB every 5 ms, for ever. */
function slowMultipart(token: string): { body: ReadableStream<Uint8Array>; type: string } {
  const boundary = "svc-crash-test";
  const encoder = new TextEncoder();
  const head = encoder.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="token"\r\n\r\n${token}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.md"\r\n` +
      "Content-Type: text/markdown\r\n\r\n",
  );
  const chunk = encoder.encode("x".repeat(64 * 1024));
  let sentHead = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sentHead) {
        sentHead = true;
        controller.enqueue(head);
        return;
      }
      await pause(5);
      controller.enqueue(chunk);
    },
  });
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

integration.test("svc api killed during an upload keeps the registered document and no partial file", async () => {
  await using dir = await tmpDir();
  let svc = await startSvc(dir.path);
  try {
    const client = await Client.login(svc.base);
    const { document, parameters } = await client.call("POST", "/document", { name: "big.md" });
    const { body, type } = slowMultipart(parameters.data.token);
    const upload = fetch(parameters.url, {
      method: "PUT",
      headers: { "content-type": type },
      body,
    }).then((response) => response.body?.cancel(), () => {});
    await waitFor("the upload's temporary file to grow", async () => {
      const [name] = await temporaryUploads(svc);
      if (name === undefined) return undefined;
      const { size } = await Deno.stat(join(svc.root, "documents", name));
      return size >= 512 * 1024 ? size : undefined;
    });
    const after = await crash(svc);
    await upload;
    assert.equal(after.documents, 1, "the registration was confirmed, so it is kept");
    assert.equal(
      (await temporaryUploads(svc)).length,
      1,
      "the kill landed in the middle of the body",
    );
    await assert.rejects(Deno.stat(join(svc.root, "documents", document.id)), Deno.errors.NotFound);

    svc = await startSvc(dir.path, { port: portOf(svc) });
    assert.deepEqual(await temporaryUploads(svc), [], "start-up removed the unfinished upload");
    assert.match(svc.stderr(), /Removed 1 unfinished uploads that a crash left/);

    // The same upload token works again: the user can retry the upload.
    const form = new FormData();
    form.set("token", parameters.data.token);
    form.set("file", new Blob([NOTES]), "big.md");
    const retried = await fetch(parameters.url, { method: "PUT", body: form });
    assert.deepEqual(await retried.json(), document);
    assert.equal(await Deno.readTextFile(join(svc.root, "documents", document.id)), NOTES);
    const chat = await client.createChat("after the crash", [document]);
    assert.equal((await client.call("POST", `/chats/${chat.id}/prepare`)).role, "system");
  } finally {
    await svc.stop("SIGKILL");
  }
});

integration.test("svc api killed during a prepare keeps the chats, prepared only where it was confirmed", async () => {
  await using dir = await tmpDir();
  let svc = await startSvc(dir.path);
  try {
    const client = await Client.login(svc.base);
    const document = await client.upload("notes.md", NOTES);
    const done = await client.createChat("prepared before", [document]);
    const cut = await client.createChat("prepared during the crash", [document]);
    assert.equal((await client.call("POST", `/chats/${done.id}/prepare`)).role, "system");

    const hold = join(svc.root, "hold");
    await Deno.writeTextFile(hold, "");
    const preparing = client.request("POST", `/chats/${cut.id}/prepare`).then(
      () => "answered",
      () => "cut",
    );
    await waitFor("the store under way", () => exists(join(svc.root, `storing-${cut.id}`)));
    const after = await crash(svc);
    assert.equal(await preparing, "cut");
    assert.equal(after.chats, 2);
    assert.equal(after.messages, 1, "only the confirmed prepare left its welcome");

    await Deno.remove(hold);
    svc = await startSvc(dir.path, { port: portOf(svc) });
    const again = client.at(svc.base);
    const [before, during] = await Promise.all(
      [done, cut].map((chat) => again.call("GET", `/chats/${chat.id}`)),
    );
    assert.equal(before.prepared, true, "the confirmed prepare is there");
    assert.deepEqual(before.messages.map((m: { role: string }) => m.role), ["system"]);
    assert.equal(during.prepared, false, "the prepare cut off left its chat as it was");
    assert.deepEqual(during.messages, []);
    assert.equal((await again.call("POST", `/chats/${cut.id}/prepare`)).role, "system");
    for (const chat of [done, cut]) {
      const answer = await again.call("POST", `/chats/${chat.id}/answer`, { prompt: "and now?" });
      assert.equal(answer.content, numbered(20));
    }
  } finally {
    await svc.stop("SIGKILL");
  }
});

integration.test("svc api killed during a streamed answer keeps the prompt and the answer as far as it was saved, told as failed once its lease is over, and the chat goes on", async () => {
  await using dir = await tmpDir();
  let svc = await startSvc(dir.path);
  try {
    const client = await Client.login(svc.base);
    const document = await client.upload("notes.md", NOTES);
    const chat = await client.createChat("streaming", [document], { chunks: 60, delay_ms: 50 });
    await client.call("POST", `/chats/${chat.id}/prepare`);

    const received: string[] = [];
    const reading = (async () => {
      for await (const line of lines(await client.ask(chat.id, "tell me slowly"))) {
        received.push(line.content);
      }
    })().catch(() => "cut");
    await waitFor("the first lines", () => received.length >= 3 || undefined);
    const after = await crash(svc);
    assert.equal(await reading, "cut");
    assert.ok(received.length < 60, `the stream was cut (${received.length} lines)`);
    assert.equal(
      after.messages,
      3,
      "the welcome, the prompt and the answer, stored together when the answer started",
    );

    svc = await startSvc(dir.path, { port: portOf(svc) });
    const again = client.at(svc.base);
    const kept = await again.call("GET", `/chats/${chat.id}`);
    type Kept = { role: string; content: string; status?: string; error?: string };
    assert.deepEqual(kept.messages.map((m: Kept) => [m.role, m.status === undefined]), [
      ["system", true],
      ["user", true],
      ["assistant", false],
    ]);
    assert.equal(kept.messages[1].content, "tell me slowly");
    const cut: Kept = kept.messages[2];
    assert.ok(numbered(60).startsWith(cut.content), "the answer as far as it was saved");
    // Its run's lease was the dead process's: it is told as running until the lease is over.
    assert.ok(["streaming", "failed"].includes(cut.status!), `status ${cut.status}`);
    const answer = [];
    for await (const line of lines(await again.ask(chat.id, "once more"))) {
      answer.push(line.content);
    }
    assert.equal(answer.join(""), numbered(60));
    const stored = await again.call("GET", `/chats/${chat.id}`);
    assert.deepEqual(stored.messages.map((m: { role: string }) => m.role), [
      "system",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    assert.equal(stored.messages[4].content, numbered(60));
    assert.equal(stored.messages[4].status, undefined);
  } finally {
    await svc.stop("SIGKILL");
  }
  checkDatabase(join(dir.path, "root", "svc.db"));
});

integration.test("svc api killed during a burst of writes keeps every write it confirmed", async () => {
  await using dir = await tmpDir();
  let svc = await startSvc(dir.path);
  try {
    const client = await Client.login(svc.base);
    const document = await client.upload("notes.md", NOTES);
    // What the server confirmed: chat id -> whether prepared, and the ids of its answers.
    const confirmed = new Map<string, { prepared: boolean; answers: string[] }>();
    let running = true;
    const worker = async (n: number) => {
      for (let i = 0; running; i++) {
        const chat = await client.createChat(`burst ${n}.${i}`, [document], { chunks: 3 });
        const record = { prepared: false, answers: [] as string[] };
        confirmed.set(chat.id, record);
        await client.call("POST", `/chats/${chat.id}/prepare`);
        record.prepared = true;
        for (let j = 0; j < 3 && running; j++) {
          const path = `/chats/${chat.id}/answer`;
          record.answers.push((await client.call("POST", path, { prompt: `${j}` })).id);
        }
      }
    };
    const workers = Array.from({ length: 6 }, (_, n) => worker(n).catch(() => {}));
    await waitFor("some confirmed answers", () => {
      const answers = [...confirmed.values()].reduce((sum, c) => sum + c.answers.length, 0);
      return answers >= 20 || undefined;
    });
    const after = await crash(svc);
    running = false;
    await Promise.all(workers);
    assert.ok(after.chats >= confirmed.size, "every confirmed chat is in the file");

    svc = await startSvc(dir.path, { port: portOf(svc) });
    const again = client.at(svc.base);
    const chats: StoredChat[] = await again.call("GET", "/chats");
    const stored = new Map(chats.map((chat) => [chat.id, chat]));
    for (const [id, { prepared, answers }] of confirmed) {
      const chat = stored.get(id);
      assert.ok(chat, `confirmed chat ${id} is there`);
      if (prepared) assert.equal(chat.prepared, true, `confirmed prepare of ${id} is there`);
      const ids = new Set(chat.messages.map((m) => m.id));
      for (const answer of answers) assert.ok(ids.has(answer), `confirmed answer ${answer}`);
    }
    // Every chat goes on: prepared if it was not, then answered.
    for (const chat of stored.values()) {
      if (!chat.prepared) await again.call("POST", `/chats/${chat.id}/prepare`);
    }
    const last = [...stored.keys()].at(-1)!;
    assert.equal(
      (await again.call("POST", `/chats/${last}/answer`, { prompt: "?" })).content,
      numbered(3),
    );
  } finally {
    await svc.stop("SIGKILL");
  }
  checkDatabase(join(dir.path, "root", "svc.db"));
});

function portOf(svc: Svc): number {
  return Number(new URL(svc.base).port);
}

async function exists(path: string): Promise<true | undefined> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return undefined;
  }
}

/** The rows of the LibSQL storage's tables of indexes, and the chunks of incomplete ones. */
interface IndexRows {
  indexes: number;
  builds: number;
  chunks: number;
  incompleteChunks: number;
}

function indexRows(path: string): IndexRows {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const count = (sql: string) => Number(db.prepare(sql).get()!.n);
    return {
      indexes: count("SELECT count(*) AS n FROM rag_indexes"),
      builds: count("SELECT count(*) AS n FROM rag_builds"),
      chunks: count("SELECT count(*) AS n FROM rag_chunks"),
      incompleteChunks: count(`SELECT count(*) AS n FROM rag_chunks
        WHERE index_id IN (SELECT id FROM rag_indexes WHERE key IS NULL)`),
    };
  } finally {
    db.close();
  }
}

integration.test("svc api removes at its start the partial index of a build that was killed, before any use of its storage", async () => {
  await using dir = await tmpDir();
  const root = join(dir.path, "root");
  const sources = join(root, "libsql", "sources.db");
  const builder = new URL("./_index_build.ts", import.meta.url).pathname;
  await using build = spawn(Deno.execPath(), denoArgs("run", "-A", builder, root));
  await waitFor("the build to write its first chunks", () => {
    try {
      const written = indexRows(sources);
      return written.incompleteChunks > 0 ? written : undefined;
    } catch {
      // The file or its tables are not made yet.
      return undefined;
    }
  });
  const killed = await build.stop("SIGKILL");
  assert.equal(killed.signal, "SIGKILL", killed.stderr);
  const left = indexRows(sources);
  assert.deepEqual([left.indexes, left.builds], [1, 1], "a build cut in its middle");

  // Started on that local root, and asked nothing but /health.
  const port = freePort();
  const config = join(dir.path, "svc.toml");
  await Deno.writeTextFile(
    config,
    svcToml({
      sourceStorage: "svc.source_storages.LibSQL",
      assistant: "svc.assistants.SvcDemoAssistant",
      port,
    }),
  );
  await using _svc = await startProcess(["api", "-c", config], {
    health: `http://127.0.0.1:${port}`,
  });
  const swept = await waitFor(
    "the partial index to go",
    () => indexRows(sources).indexes === 0 ? indexRows(sources) : undefined,
  );
  assert.deepEqual(swept, { indexes: 0, builds: 0, chunks: 0, incompleteChunks: 0 });
});
