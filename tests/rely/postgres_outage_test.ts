/**
 * `svc api` while its PostgreSQL is down (stopped, then started again): every
 * request is refused with 503 and a sentence, `/health` included, whether the
 * database is the API's or the Postgres storage's, and everything answers
 * again once it is back.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { freePort, startProcess } from "../_process.ts";
import { postgresTest } from "../_postgres.ts";
import { tmpDir } from "../test_utils.ts";
import { startReplica } from "./_replicas.ts";
import { Client, type Svc, waitFor, writeComponents } from "./_server.ts";

/** The status and the error message of a response, its body read. */
async function outcome(response: Response): Promise<[number, string | undefined]> {
  const text = await response.text();
  return [response.status, response.ok ? undefined : JSON.parse(text).error?.message];
}

/** Waits until `/health` answers 200 again, as it does once the pool has connected. */
async function healthy(svc: Svc): Promise<void> {
  await waitFor("/health to answer 200", async () => {
    const response = await fetch(`${svc.base}/health`);
    return (await outcome(response))[0] === 200 || undefined;
  });
}

postgresTest(
  "while the API's PostgreSQL is down, /health and every route answer 503 naming the database",
  async (database, cluster) => {
    await using dir = await tmpDir();
    await using svc = await startReplica(join(dir.path, "replica"), { databaseUrl: database.url });
    const client = await Client.login(svc.base);
    const chat = await client.createChat("outage", [], { chunks: 2, delay_ms: 1 });
    await client.call("POST", `/chats/${chat.id}/prepare`);

    const refused = await cluster.whileDown(async () => [
      await outcome(await fetch(`${svc.base}/health`)),
      await outcome(await client.request("GET", "/chats")),
      await outcome(await client.ask(chat.id, "still there?")),
      await outcome(await client.request("PATCH", `/chats/${chat.id}`, { name: "renamed" })),
    ]);
    for (const [status, message] of refused) {
      assert.equal(status, 503, String(message));
      assert.match(message!, /^Cannot (read from|write to) the database "postgresql:\/\/[^"]+": /);
    }
    await healthy(svc);
    const health = await fetch(`${svc.base}/health`);
    assert.deepEqual(await health.json(), { status: "ok" });
    assert.equal((await client.call("GET", `/chats/${chat.id}`)).prepared, true);
  },
);

postgresTest(
  "while the Postgres storage's database is down, its chats are refused with 503, not 422 or 500",
  async (database, cluster) => {
    await using dir = await tmpDir();
    // The API's own database is a file of the local root: only the storage's goes down.
    await writeComponents(dir.path);
    const port = freePort();
    const config = join(dir.path, "svc.toml");
    await Deno.writeTextFile(
      config,
      [
        'local_root = "root"',
        'source_storages = ["svc.source_storages.Postgres"]',
        'assistants = ["./slow.ts#Slow"]',
        "[api]",
        'hostname = "127.0.0.1"',
        `port = ${port}`,
        "",
      ].join("\n"),
    );
    const base = `http://127.0.0.1:${port}`;
    await using _svc = await startProcess(["api", "-c", config], {
      health: base,
      env: { SVC_POSTGRES_URL: database.url },
    });
    const client = await Client.login(base);
    const document = await client.upload("notes.md", "# Notes\n\nThe storage keeps this.\n");
    const create = (name: string) =>
      client.call("POST", "/chats", {
        name,
        source_storage: "Postgres",
        assistant: "Test/Numbered",
        params: { chunks: 2, delay_ms: 1 },
        documents: [document],
      });
    const asked = await create("asked");
    await client.call("POST", `/chats/${asked.id}/prepare`);
    const fresh = await create("fresh");

    const refused = await cluster.whileDown(async () => [
      await outcome(await client.request("POST", `/chats/${fresh.id}/prepare`)),
      await outcome(await client.ask(asked.id, "what does the storage keep?")),
    ]);
    for (const [status, message] of refused) {
      assert.equal(status, 503, String(message));
      assert.match(
        message!,
        /^The component "Postgres" is not available: it needs the server PostgreSQL at "postgresql:/,
      );
    }

    // Once it is back, the refused prepare is made.
    await waitFor("the storage to answer again", async () => {
      const response = await client.request("POST", `/chats/${fresh.id}/prepare`);
      return (await outcome(response))[0] === 200 || undefined;
    });
  },
);
