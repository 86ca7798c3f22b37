/**
 * Three `svc api` processes on one PostgreSQL database, each with a local
 * root of its own: every step of a whole chat goes to another replica, and a
 * replica killed with SIGKILL in the middle of a streamed answer or of a
 * prepare leaves the others serving everything, nothing lost or duplicated.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { connect, postgresTest, type Sql } from "../_postgres.ts";
import { tmpDir } from "../test_utils.ts";
import { numbered } from "./_components.ts";
import { startReplicaSet } from "./_replicas.ts";
import { Client, lines, type Svc, waitFor } from "./_server.ts";

const NOTES = "# Notes\n\nThe replicas share this.\n";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Sends the file of a registered document to the replica at `base`, whichever registered it. */
function putFile(base: string, registered: Json, content: string): Promise<Response> {
  const form = new FormData();
  for (const [key, value] of Object.entries(registered.parameters.data)) {
    form.set(key, value as string);
  }
  form.set("file", new Blob([content]), registered.document.name);
  return fetch(`${base}/document`, { method: "PUT", body: form });
}

/** Uploads the file of a registered document to the replica at `base`; its `Document`. */
async function uploadTo(base: string, registered: Json, content: string): Promise<Json> {
  const response = await putFile(base, registered, content);
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text);
}

/** Three replicas on the database, and one user's client of each, logged in on the first. */
async function threeReplicas(dir: string, databaseUrl: string) {
  const set = await startReplicaSet(dir, 3, { databaseUrl });
  const [a, b, c] = set.replicas as [Svc, Svc, Svc];
  try {
    // A session made on one replica is valid on every other.
    const onA = await Client.login(a.base);
    return { set, a, b, c, onA, onB: onA.at(b.base), onC: onA.at(c.base) };
  } catch (error) {
    await set[Symbol.asyncDispose]();
    throw error;
  }
}

async function withClient(url: string, work: (sql: Sql) => Promise<void>): Promise<void> {
  const sql = await connect(url);
  try {
    await work(sql);
  } finally {
    await sql.end();
  }
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

postgresTest(
  "each step of a whole chat goes to another replica, on secrets the replicas keep in the database",
  async (database) => {
    await using dir = await tmpDir();
    const { set, a, b, c, onA, onB, onC } = await threeReplicas(dir.path, database.url);
    await using _replicas = set;

    // Registered on B, uploaded to C with B's token, prepared on A.
    const registered = await onB.call("POST", "/document", { name: "notes.md" });
    const document = await uploadTo(c.base, registered, NOTES);
    assert.deepEqual(document, registered.document);
    const again = await putFile(a.base, registered, "other");
    assert.equal(again.status, 409, "a token uploads once, whichever replica it is sent to");
    await again.body?.cancel();

    const chat = await onC.createChat("shared", [document], { chunks: 5, delay_ms: 1 });
    const welcome = await onA.call("POST", `/chats/${chat.id}/prepare`);
    assert.equal(welcome.role, "system");
    // A read the file from the database, into its own local root.
    const id = document.id;
    assert.equal(await exists(join(a.root, "documents", id)), true);
    assert.equal(await exists(join(b.root, "documents", id)), false);

    const answer = [];
    for await (const line of lines(await onB.ask(chat.id, "what do the notes say?"))) {
      answer.push(line);
    }
    assert.equal(answer.map((line) => line.content).join(""), numbered(5));
    assert.deepEqual(answer[0].sources.map((s: Json) => s.document.id), [id]);

    // Every replica reads the same chat, byte for byte.
    const listed = await Promise.all(
      [a, b, c].map(async (replica) =>
        await (await onA.at(replica.base).request("GET", "/chats")).text()
      ),
    );
    assert.equal(new Set(listed).size, 1);
    const [stored] = JSON.parse(listed[0]!);
    assert.deepEqual(stored.messages.map((m: Json) => m.role), ["system", "user", "assistant"]);

    assert.equal(await onC.call("DELETE", `/chats/${chat.id}`), null);
    assert.deepEqual(await onA.call("GET", "/chats"), []);
    assert.equal(await onB.call("DELETE", `/documents/${id}`), null);
    const gone = await onC.request("GET", `/documents/${id}/content`);
    assert.equal(gone.status, 404);
    await gone.body?.cancel();

    // Logging out on one replica ends the session on every other at once.
    const other = await Client.login(b.base, "bob");
    const out = await fetch(`${c.base}/logout`, {
      method: "POST",
      headers: { authorization: `Bearer ${other.token}` },
    });
    await out.body?.cancel();
    const refused = await other.at(a.base).request("GET", "/chats");
    assert.equal(refused.status, 401);
    await refused.body?.cancel();

    // An API key made on one replica works on every other until it is revoked on any.
    const key = await onA.call("POST", "/api-keys", { name: "script" });
    const withKey = (base: string) =>
      fetch(`${base}/chats`, { headers: { authorization: `Bearer ${key.key}` } });
    const used = await withKey(b.base);
    assert.equal(used.status, 200);
    await used.body?.cancel();
    assert.equal(await onC.call("DELETE", `/api-keys/${key.id}`), null);
    for (const replica of [a, b]) {
      const revoked = await withKey(replica.base);
      assert.equal(revoked.status, 401, "a revoked key is refused everywhere at once");
      await revoked.body?.cancel();
    }
  },
);

postgresTest(
  "a replica killed mid-answer and one killed mid-prepare leave the others serving everything",
  async (database) => {
    await using dir = await tmpDir();
    const { set, a, b, onA, onB, onC } = await threeReplicas(dir.path, database.url);
    await using _replicas = set;
    const registered = await onA.call("POST", "/document", { name: "notes.md" });
    const document = await uploadTo(a.base, registered, NOTES);

    // Killed in the middle of a prepare: B's storage holds until B is dead.
    const chat = await onA.createChat("held", [document], { chunks: 40, delay_ms: 30 });
    await Deno.mkdir(b.root, { recursive: true });
    await Deno.writeTextFile(join(b.root, "hold"), "");
    const preparing = onB.request("POST", `/chats/${chat.id}/prepare`).then(
      (response) => response.status,
      () => "cut",
    );
    await waitFor(
      "B's prepare to start storing",
      () => exists(join(b.root, `storing-${chat.id}`)).then((yes) => yes || undefined),
    );
    const killed = await b.stop("SIGKILL");
    assert.equal(killed.signal, "SIGKILL");
    assert.equal(await preparing, "cut");
    assert.equal((await onC.call("GET", `/chats/${chat.id}`)).prepared, false);
    // Redone on another replica: prepared once, with one welcome.
    await onC.call("POST", `/chats/${chat.id}/prepare`);
    const prepared = await onA.call("GET", `/chats/${chat.id}`);
    assert.equal(prepared.prepared, true);
    assert.deepEqual(prepared.messages.map((m: Json) => m.role), ["system"]);

    // Killed in the middle of a streamed answer: the prompt was kept, and the answer as far as
    // it was saved, still "streaming" until the dead replica's lease ends.
    const received: string[] = [];
    const reading = (async () => {
      for await (const line of lines(await onA.ask(chat.id, "tell me slowly"))) {
        received.push(line.content);
      }
    })().catch(() => "cut");
    await waitFor("the first lines", () => received.length >= 3 || undefined);
    await a.stop("SIGKILL");
    assert.equal(await reading, "cut");
    assert.ok(received.length < 40, `the stream was cut (${received.length} lines)`);

    // C serves everything: the chat as it was, and the next answer whole.
    const kept = await onC.call("GET", `/chats/${chat.id}`);
    assert.deepEqual(kept.messages.map((m: Json) => [m.role, m.status]), [
      ["system", undefined],
      ["user", undefined],
      ["assistant", "streaming"],
    ]);
    assert.equal(kept.messages[0].content, prepared.messages[0].content);
    assert.equal(kept.messages[1].content, "tell me slowly");
    assert.ok(numbered(40).startsWith(kept.messages[2].content), "the answer as far as saved");
    const answer = [];
    for await (const line of lines(await onC.ask(chat.id, "once more"))) answer.push(line.content);
    assert.equal(answer.join(""), numbered(40));
    const after = await onC.call("GET", `/chats/${chat.id}`);
    assert.deepEqual(after.messages.map((m: Json) => m.role), [
      "system",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    assert.equal(new Set(after.messages.map((m: Json) => m.id)).size, 5, "no message twice");
    assert.equal((await onC.call("GET", "/chats")).length, 1);
  },
);

postgresTest(
  "a chat on the Postgres storage, prepared on two replicas at once, is indexed once and answered on a third",
  async (database) => {
    await using dir = await tmpDir();
    const { set, a, b, c, onA, onB, onC } = await threeReplicas(dir.path, database.url);
    await using _replicas = set;
    const registered = await onA.call("POST", "/document", { name: "notes.md" });
    const document = await uploadTo(b.base, registered, NOTES);
    const chat = await onC.call("POST", "/chats", {
      name: "indexed",
      source_storage: "Postgres",
      assistant: "Test/Numbered",
      params: { chunks: 3, delay_ms: 1 },
      documents: [document],
    });
    // Prepared on A and on C at once: one prepares it, the other is told it is prepared.
    const statuses = await Promise.all([a, c].map(async (replica) => {
      const response = await onA.at(replica.base).request("POST", `/chats/${chat.id}/prepare`);
      await response.body?.cancel();
      return response.status;
    }));
    assert.deepEqual(statuses.sort(), [200, 400]);
    const prepared = await onB.call("GET", `/chats/${chat.id}`);
    assert.deepEqual(prepared.messages.map((m: Json) => m.role), ["system"]);

    const answer = [];
    for await (const line of lines(await onB.ask(chat.id, "what do the replicas share?"))) {
      answer.push(line);
    }
    const sources = answer[0].sources;
    assert.ok(sources.length > 0, "the answer has sources from the shared index");
    assert.ok(sources.every((s: Json) => s.document.id === document.id));
    assert.match(sources.map((s: Json) => s.content).join(" "), /replicas share this/);
    // One index of the document, whichever replicas stored it.
    await withClient(database.url, async (sql) => {
      const [indexes] = await sql`SELECT count(*) AS n FROM rag_indexes`;
      assert.equal(Number(indexes!.n), 1, "in the API's database");
    });
  },
);
