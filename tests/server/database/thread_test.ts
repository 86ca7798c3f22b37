import assert from "node:assert/strict";
import { openDatabase } from "../../../server/database/mod.ts";
import {
  DatabaseThread,
  databaseThread,
  endSpareThread,
  startSpareThread,
} from "../../../server/database/thread.ts";
import { tmpDir } from "../../test_utils.ts";
import { chat, svcError } from "./_helpers.ts";

Deno.test("a file database on its thread answers as in-process, errors and statuses included", async () => {
  await using dir = await tmpDir();
  const path = `${dir.path}/svc.db`;
  const threaded = await openDatabase(`sqlite:///${path}`, { localRoot: dir.path });
  try {
    assert.equal(threaded.name, `sqlite:///${path}`);
    await threaded.addChat("ada", chat("c1", []));
    assert.deepEqual((await threaded.getChat("ada", "c1")).metadata.name, "Chat c1");
    await assert.rejects(threaded.getChat("bob", "c1"), svcError(404, 'No chat "c1"'));
    await assert.rejects(threaded.addChat("ada", chat("c1", [])), svcError(409, /exists/));
  } finally {
    await threaded.close();
  }
  await assert.rejects(threaded.listChats("ada"), svcError(503, /is closed/));

  const inProcess = await openDatabase(`sqlite:///${path}`, { localRoot: dir.path, thread: false });
  try {
    assert.equal((await inProcess.listChats("ada")).length, 1);
  } finally {
    await inProcess.close();
  }
});

Deno.test("DatabaseThread refuses calls once stopped, and calls that were waiting", async () => {
  const thread = new DatabaseThread();
  const waiting = thread.call("listChats", ["ada"]);
  thread.terminate();
  await assert.rejects(waiting, svcError(503, "The database thread was stopped"));
  await assert.rejects(thread.call("open", []), svcError(503, "The database thread was stopped"));
});

Deno.test("a database thread started ahead is taken by the next file database, and ended when none is", async () => {
  await using dir = await tmpDir();
  startSpareThread();
  const first = databaseThread();
  assert.notEqual(databaseThread(), first, "taken once");
  first.terminate();

  startSpareThread();
  const database = await openDatabase(`sqlite:///${dir.path}/svc.db`, { localRoot: dir.path });
  try {
    await database.addChat("ada", chat("c1", []));
    // Taken by the database: ending the spare now ends nothing that is in use.
    endSpareThread();
    assert.equal((await database.listChats("ada")).length, 1);
  } finally {
    await database.close();
  }

  startSpareThread();
  endSpareThread();
  // A new thread, not the one ended.
  const fresh = databaseThread();
  try {
    assert.equal(await fresh.call("open", ["sqlite://", { localRoot: dir.path }]), "sqlite://");
  } finally {
    fresh.terminate();
  }
});
