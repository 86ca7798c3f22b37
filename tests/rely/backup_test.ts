/**
 * The backup of docs_operations.md, made while `svc api` runs and writes:
 * the database first (`VACUUM INTO`, or `sqlite3 .backup`), then the
 * documents; the copy passes the checks and serves as a local root.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { run } from "../_process.ts";
import { tmpDir } from "../test_utils.ts";
import { numbered } from "./_components.ts";
import { checkDatabase } from "./_database.ts";
import { streamAnswers } from "./_load.ts";
import { Client, startSvc } from "./_server.ts";
import { integration } from "../_tier.ts";

const HAS_SQLITE3 = await run("sqlite3", ["--version"]).then(
  (output) => output.success,
  () => false,
);

/** The one-liner of docs_operations.md for machines without the sqlite3 command. */
function vacuumInto(database: string, copy: string): void {
  const db = new DatabaseSync(database);
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.prepare("VACUUM INTO ?").run(copy);
  } finally {
    db.close();
  }
}

/** `sqlite3 "$ROOT/svc.db" ".timeout 5000" ".backup '$BACKUP/svc.db'"`, as documented. */
async function sqlite3Backup(database: string, copy: string): Promise<void> {
  const { success, stderr } = await run("sqlite3", [
    database,
    ".timeout 5000",
    `.backup '${copy}'`,
  ]);
  assert.ok(success, stderr);
}

/** `cp -a "$ROOT/documents" "$BACKUP/"`, leaving out unfinished uploads, as documented. */
async function copyDocuments(root: string, backup: string): Promise<void> {
  await Deno.mkdir(join(backup, "documents"), { recursive: true });
  for await (const entry of Deno.readDir(join(root, "documents"))) {
    if (entry.name.startsWith(".upload-")) continue;
    await Deno.copyFile(join(root, "documents", entry.name), join(backup, "documents", entry.name));
  }
}

for (const method of ["VACUUM INTO", "sqlite3 .backup"] as const) {
  integration.test({
    name: `a backup by ${method} taken while svc api writes holds every chat and serves again`,
    ignore: method === "sqlite3 .backup" && !HAS_SQLITE3,
    async fn() {
      await using dir = await tmpDir();
      await using live = await tmpDir();
      await using svc = await startSvc(live.path);
      const client = await Client.login(svc.base);
      const document = await client.upload("notes.md", "# Notes\n\nBacked up while running.\n");
      const chats = await Promise.all(
        Array.from({ length: 10 }, (_, n) => client.createChat(`backup ${n}`, [document])),
      );
      await Promise.all(chats.map((chat) => client.call("POST", `/chats/${chat.id}/prepare`)));

      // The backup is taken in the middle of streamed answers, each stored as it ends.
      const writing = streamAnswers((slot) => client.ask(chats[slot]!.id, "count"), {
        concurrency: chats.length,
        rounds: 3,
        chunks: 20,
      });
      const backup = join(dir.path, "root");
      await Deno.mkdir(backup);
      const copy = join(backup, "svc.db");
      if (method === "VACUUM INTO") vacuumInto(join(svc.root, "svc.db"), copy);
      else await sqlite3Backup(join(svc.root, "svc.db"), copy);
      await copyDocuments(svc.root, backup);
      assert.deepEqual((await writing).problems, []);

      const { chats: backedUp, documents } = checkDatabase(copy);
      assert.equal(backedUp, chats.length, "every chat made before the backup is in it");
      assert.equal(documents, 1);

      // The copy is a local root that svc serves: the chats are there and go on.
      await using restored = await startSvc(dir.path);
      const again = client.at(restored.base);
      const listed: { id: string; prepared: boolean }[] = await again.call("GET", "/chats");
      assert.deepEqual(listed.map((chat) => chat.id).sort(), chats.map((chat) => chat.id).sort());
      assert.ok(listed.every((chat) => chat.prepared));
      const answer = await again.call("POST", `/chats/${chats[0]!.id}/answer`, { prompt: "?" });
      assert.equal(answer.content, numbered(20));
    },
  });
}
