import assert from "node:assert/strict";
import { createClient, LibsqlError } from "@libsql/client";
import { type Database, LibsqlDatabase, openDatabase } from "../../../server/database/mod.ts";
import { migrate } from "../../../server/database/migrations.ts";
import { databaseError } from "../../../server/database/steps.ts";
import { type SmallDisk, smallDisk } from "../../_disk.ts";
import { chat, document, message, svcError } from "./_helpers.ts";

/** A file database on the disk: on its thread on a tmpfs, here where faults are injected. */
async function databaseOn(disk: SmallDisk): Promise<Database> {
  const path = `${disk.path}/svc.db`;
  if (disk.kind === "tmpfs") {
    return await openDatabase(`sqlite:///${path}`, { localRoot: disk.path });
  }
  const client = createClient({ url: `file:${path}` });
  await migrate(client, { name: `sqlite:///${path}` });
  return new LibsqlDatabase(disk.client(client), { name: `sqlite:///${path}` });
}

Deno.test("databaseError() answers a full or read-only disk with 507 or 503 naming the database", () => {
  const full = databaseError(
    'Cannot save message "m1"',
    new LibsqlError("SQLITE_FULL: database or disk is full", "SQLITE_FULL"),
  );
  assert.equal(full.message, "Cannot write to the database: the disk is full");
  assert.equal(full.status, 507);
  const readOnly = databaseError(
    'Cannot write to the database "sqlite:///srv/svc.db"',
    new LibsqlError("SQLITE_READONLY: attempt to write a readonly database", "SQLITE_READONLY"),
  );
  assert.equal(readOnly.message, "Cannot write to the database: the disk is read-only");
  assert.equal(readOnly.status, 503);
  const taken = databaseError(
    'Cannot save document "d1"',
    new LibsqlError("SQLITE_CONSTRAINT: UNIQUE constraint failed", "SQLITE_CONSTRAINT_UNIQUE"),
  );
  assert.equal(taken.status, 409);
  assert.equal(databaseError("Cannot read", new Error("bug")).status, 500);
});

Deno.test("Database answers 507 when its disk is full, keeps nothing of the write, and writes once there is space", async () => {
  await using disk = await smallDisk(4 * 1024 * 1024);
  const db = await databaseOn(disk);
  try {
    const d1 = document("d1");
    await db.addDocument("ada", d1);
    await db.addChat("ada", chat("small", [d1]));
    // Larger than what the write-ahead log may still hold from earlier writes.
    const long = (id: string) => message(id, { content: "x".repeat(200_000) });
    const big = chat("big", [d1], { messages: Array.from({ length: 8 }, (_, i) => long(`m${i}`)) });

    await disk.fill();
    await assert.rejects(
      db.addChat("ada", big),
      svcError(507, "Cannot write to the database: the disk is full"),
    );
    // Reads go on, and nothing of the refused write is there.
    assert.deepEqual((await db.listChats("ada")).map((c) => c.id), ["small"]);
    await assert.rejects(db.getChat("ada", "big"), svcError(404, 'No chat "big"'));

    await disk.free();
    await db.addChat("ada", big);
    assert.equal((await db.getChat("ada", "big")).messages.length, 8);
  } finally {
    await db.close();
  }
});
