/**
 * A full disk under `svc api`: its local root on a small tmpfs (or, where the
 * machine cannot mount one, the same API in this process with the faults
 * injected), filled during an upload, an answer and a prepare. Each request
 * is refused with its status and a sentence naming what could not be
 * written, `/health` answers throughout, nothing half-written stays, and
 * everything works again once there is space.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import type { IndexBackend } from "../../components/indexing/mod.ts";
import { LibSQLBackend } from "../../components/source_storages/_libsql_backend.ts";
import { LibSQL } from "../../components/source_storages/libsql.ts";
import { AnswerRuns } from "../../server/api/answer_runs.ts";
import { LibsqlDatabase } from "../../server/database/mod.ts";
import { migrate } from "../../server/database/migrations.ts";
import { type SmallDisk, smallDisk } from "../_disk.ts";
import { freePort, startProcess } from "../_process.ts";
import { testApi } from "../server/api/_api.ts";
import { svcToml, tmpDir } from "../test_utils.ts";

/** Where the requests go: a real `svc api`, or the same API in this process. */
interface Target extends AsyncDisposable {
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/** `svc api` with its local root on the disk's tmpfs, LibSQL and the demo assistant. */
async function serveOn(disk: SmallDisk, config: string): Promise<Target> {
  const port = freePort();
  await Deno.writeTextFile(
    config,
    svcToml({
      localRoot: disk.path,
      sourceStorage: "svc.source_storages.LibSQL",
      assistant: "svc.assistants.SvcDemoAssistant",
      port,
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  const svc = await startProcess(["api", "-c", config], { health: base });
  return {
    fetch: (path, init) => fetch(`${base}${path}`, init),
    async [Symbol.asyncDispose]() {
      await svc.stop("SIGKILL");
    },
  };
}

/**
 * The same API in this process (the test API of `tests/server/api/`), its
 * documents on the disk, its database and LibSQL through clients that meet
 * the faults.
 */
async function inProcess(disk: SmallDisk): Promise<Target> {
  const path = join(disk.path, "svc.db");
  const client = createClient({ url: `file:${path}` });
  await migrate(client, { name: `sqlite:///${path}` });
  const database = new LibsqlDatabase(disk.client(client), { name: path, reclaimSpace: true });
  const url = `file:${disk.path}/libsql/sources.db`;
  await Deno.mkdir(join(disk.path, "libsql"));
  let opened: Promise<LibSQLBackend> | undefined;
  const storage = new class extends LibSQL {
    protected override backend(): Promise<IndexBackend> {
      return opened ??= LibSQLBackend.open(disk.client(createClient({ url })), {
        reclaimSpace: true,
      });
    }
  }();
  const api = await testApi({ sourceStorages: [storage], maxUploadSize: 16 * 1024 * 1024 });
  api.deps.localRoot = disk.path;
  api.deps.database = database;
  // Answers are written where the chats are.
  api.deps.answers = new AnswerRuns({ database, log: api.deps.log });
  return {
    fetch: async (target, init) => await api.app.request(`http://svc.test${target}`, init),
    async [Symbol.asyncDispose]() {
      await database.close();
      await api[Symbol.asyncDispose]();
    },
  };
}

/** The status and the message of an error response. */
async function refusal(response: Response): Promise<[number, string]> {
  const body = await response.json();
  return [response.status, body?.error?.message];
}

/** The temporary files of uploads under way or cut off. */
async function temporaryUploads(root: string): Promise<string[]> {
  const uploads = [];
  for await (const entry of Deno.readDir(join(root, "documents"))) {
    if (entry.name.startsWith(".upload-")) uploads.push(entry.name);
  }
  return uploads;
}

/** What an upload or a build left half-written. */
async function halfWritten(root: string) {
  const uploads = await temporaryUploads(root);
  const client = createClient({ url: `file:${root}/libsql/sources.db` });
  try {
    const [chunks, builds] = await client.batch([
      `SELECT count(*) AS n FROM rag_chunks
        WHERE index_id NOT IN (SELECT id FROM rag_indexes WHERE key IS NOT NULL)`,
      "SELECT count(*) AS n FROM rag_builds",
    ], "read");
    return {
      uploads,
      chunks: Number(chunks!.rows[0]!.n),
      builds: Number(builds!.rows[0]!.n),
    };
  } finally {
    client.close();
  }
}

Deno.test("svc api on a full disk refuses an upload with 507, an answer and a prepare too, keeps answering /health and leaves nothing half-written", async () => {
  await using dir = await tmpDir();
  await using disk = await smallDisk(24 * 1024 * 1024);
  await using api = disk.kind === "tmpfs"
    ? await serveOn(disk, join(dir.path, "svc.toml"))
    : await inProcess(disk);

  const token = await (await api.fetch("/token", {
    method: "POST",
    body: new URLSearchParams({ username: "ada", password: "ada" }),
  })).json();
  const call = (method: string, path: string, body?: unknown) =>
    api.fetch(path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const register = async (name: string) => await (await call("POST", "/document", { name })).json();
  const upload = async (registered: { parameters: { data: { token: string } } }, text: string) => {
    const form = new FormData();
    form.set("token", registered.parameters.data.token);
    form.set("file", new Blob([text]), "file");
    return await api.fetch("/document", { method: "PUT", body: form });
  };
  const chatOver = async (name: string, document: unknown) =>
    await (await call("POST", "/chats", {
      name,
      source_storage: "LibSQL",
      assistant: "Svc/DemoAssistant",
      params: { chunk_size: 8, chunk_overlap: 0 },
      documents: [document],
    })).json();
  const healthy = async () => {
    const response = await api.fetch("/health");
    assert.deepEqual([response.status, await response.json()], [200, { status: "ok" }]);
  };

  const notes = await register("notes.md");
  assert.equal((await upload(notes, "# Notes\n\nThe bakery opens at six.")).status, 200);
  const big = await register("big.md");
  const words = Array.from({ length: 4000 }, (_, i) => `loaf${i % 997}`).join(" ");
  assert.equal((await upload(big, words)).status, 200);
  const reading = await chatOver("Reading", notes.document);
  assert.equal((await call("POST", `/chats/${reading.id}/prepare`)).status, 200);
  const indexing = await chatOver("Indexing", big.document);
  const late = await register("late.md");

  await disk.fill();
  // An upload: nothing of it is kept, and its token works again later.
  assert.deepEqual(await refusal(await upload(late, "x".repeat(256 * 1024))), [
    507,
    "Cannot store the upload: the disk is full",
  ]);
  assert.deepEqual(await temporaryUploads(disk.path), []);
  await healthy();
  // An answer, streamed or not: its prompt cannot be stored.
  const prompt = `When does the bakery open? ${"Please. ".repeat(40_000)}`;
  for (const stream of [false, true]) {
    assert.deepEqual(
      await refusal(await call("POST", `/chats/${reading.id}/answer`, { prompt, stream })),
      [507, "Cannot write to the database: the disk is full"],
    );
    await healthy();
  }
  const kept = await (await call("GET", `/chats/${reading.id}`)).json();
  assert.deepEqual(kept.messages.map((m: { role: string }) => m.role), ["system"]);

  // A prepare whose index fills what is left of the disk halfway.
  await disk.free();
  await disk.fill({ leave: 1024 * 1024 });
  assert.deepEqual(await refusal(await call("POST", `/chats/${indexing.id}/prepare`)), [
    507,
    'Cannot store the index of "big.md" in LibSQL: the disk is full',
  ]);
  await healthy();
  assert.equal((await (await call("GET", `/chats/${indexing.id}`)).json()).prepared, false);

  // Space again: every refused request goes through, and nothing half-written is left.
  await disk.free();
  assert.equal((await call("POST", `/chats/${indexing.id}/prepare`)).status, 200);
  const answer = await call("POST", `/chats/${reading.id}/answer`, { prompt: "When?" });
  assert.equal(answer.status, 200);
  assert.equal((await upload(late, "# Late")).status, 200);
  assert.deepEqual(await halfWritten(disk.path), { uploads: [], chunks: 0, builds: 0 });
});
