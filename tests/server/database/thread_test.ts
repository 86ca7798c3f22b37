import assert from "node:assert/strict";
import { WATCH_INTERVAL_MS } from "../../../server/database/file_database.ts";
import { openDatabase } from "../../../server/database/mod.ts";
import {
  DatabaseThread,
  databaseThread,
  endSpareThread,
  startSpareThread,
} from "../../../server/database/thread.ts";
import { tmpDir } from "../../test_utils.ts";
import { chat, message, svcError } from "./_helpers.ts";

/**
 * Waits until `check` holds, looking every 10 ms; the deadline only guards
 * against a hang, however busy the machine.
 */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + 120_000;
  while (!await check()) {
    if (Date.now() > until) throw new Error(`Never ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

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
    const opened = await fresh.call("open", [`${dir.path}/fresh.db`, { name: "fresh" }]);
    assert.equal((opened as { name: string }).name, "fresh");
  } finally {
    fresh.terminate();
  }
});

Deno.test("a threaded database's sessions and chat lists read again from memory hold this process's writes at once", async () => {
  await using dir = await tmpDir();
  const database = await openDatabase(`sqlite:///${dir.path}/svc.db`, { localRoot: dir.path });
  try {
    await database.addChat("ada", chat("c1", []));
    const before = await database.listChatsJson("ada");
    assert.equal(await database.listChatsJson("ada"), before, "read again");
    await database.addMessages("ada", "c1", [message("m1")]);
    assert.equal(JSON.parse(await database.listChatsJson("ada"))[0].messages.length, 1);
    assert.equal(JSON.parse(await database.listChatsJson("bob")).length, 0, "another user's list");

    const now = Math.floor(Date.now() / 1000);
    await database.startSession({ id: "s1", user: "ada", created: now, expires: now + 60 });
    assert.equal(await database.sessionUser("s1", now), "ada");
    assert.equal(await database.sessionUser("s1", now), "ada", "read again");
    assert.equal(await database.sessionUser("s1", now + 60), undefined, "expired");
    assert.equal(await database.endSession("s1"), true);
    assert.equal(await database.sessionUser("s1", now), undefined, "ended");
  } finally {
    await database.close();
  }
});

Deno.test(`a threaded database sees another process's commits to its file within ${WATCH_INTERVAL_MS} ms`, async () => {
  await using dir = await tmpDir();
  const url = `sqlite:///${dir.path}/svc.db`;
  const database = await openDatabase(url, { localRoot: dir.path });
  // Another connection to the file, as another process (svc user, svc mcp) has.
  const other = await openDatabase(url, { localRoot: dir.path, thread: false });
  try {
    const now = Math.floor(Date.now() / 1000);
    await database.startSession({ id: "s1", user: "ada", created: now, expires: now + 60 });
    await database.addChat("ada", chat("c1", []));
    assert.equal(await database.sessionUser("s1", now), "ada");
    assert.equal(JSON.parse(await database.listChatsJson("ada")).length, 1);

    assert.equal(await other.endSession("s1"), true);
    await other.addChat("ada", chat("c2", []));
    await eventually(
      async () => await database.sessionUser("s1", now) === undefined,
      "saw the session ended",
    );
    await eventually(
      async () => JSON.parse(await database.listChatsJson("ada")).length === 2,
      "saw the new chat",
    );
  } finally {
    await other.close();
    await database.close();
  }
});
