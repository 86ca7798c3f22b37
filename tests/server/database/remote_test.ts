import assert from "node:assert/strict";
import { openDatabase } from "../../../server/database/mod.ts";
import { tmpDir } from "../../test_utils.ts";
import { chat, document, message, source, svcError } from "./_helpers.ts";
import { startFakeLibsqlServer } from "./_libsql_server.ts";

Deno.test("openDatabase() with an http:// URL keeps chats on a libSQL server", async () => {
  await using dir = await tmpDir();
  await using server = startFakeLibsqlServer(`${dir.path}/remote.db`);
  const d1 = document("d1");
  const db = await openDatabase(server.url, { localRoot: dir.path, authToken: "" });
  try {
    await db.addDocument("ada", d1);
    await db.addChat("ada", chat("c1", [d1]));
    const welcome = message("w", { role: "system" });
    await db.setPrepared("ada", "c1", welcome);
    const answer = message("a", {
      role: "assistant",
      sources: [source("s1", d1), source("s0", d1)],
    });
    await db.addMessages("ada", "c1", [message("q"), answer]);
    await assert.rejects(
      db.addMessages("ada", "c1", [message("x"), message("x")]),
      svcError(409, /^Cannot save message "x": UNIQUE constraint failed: messages\.id$/),
    );
    await assert.rejects(db.getChat("bob", "c1"), svcError(404, 'No chat "c1"'));
    const [got] = await db.listChats("ada");
    assert.deepEqual(got?.messages, [
      welcome,
      message("q", { timestamp: got!.messages[1]!.timestamp }),
      answer,
    ]);
    assert.equal(got.prepared, true);
    await db.deleteChat("ada", "c1");
    assert.deepEqual(await db.listChats("ada"), []);
    assert.ok(server.requests > 0);
  } finally {
    await db.close();
  }
});

Deno.test("openDatabase() sends the token it is given to a libsql:// server", async () => {
  await using dir = await tmpDir();
  await using server = startFakeLibsqlServer(`${dir.path}/remote.db`, { token: "t0ken" });
  const url = `libsql://127.0.0.1:${server.port}?tls=0`;
  await assert.rejects(
    openDatabase(url, { localRoot: dir.path }),
    // Named without its query, where a token may be.
    svcError(500, /^Cannot open the database "libsql:\/\/127\.0\.0\.1:\d+": .*401/),
  );
  const db = await openDatabase(url, { localRoot: dir.path, authToken: "t0ken" });
  await db.addDocument("ada", document("d1"));
  assert.equal((await db.getDocument("ada", "d1")).id, "d1");
  await db.close();
});
