import { createClient } from "@libsql/client";
import { openSqliteFile } from "../../../server/database/sqlite_file.ts";
import assert from "node:assert/strict";
import { migrate } from "../../../server/database/migrations.ts";
import { MIGRATIONS, openDatabase } from "../../../server/database/mod.ts";
import { smallDisk } from "../../_disk.ts";
import { tmpDir } from "../../test_utils.ts";
import { chat, document, message, source, svcError } from "./_helpers.ts";

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

async function sql(path: string, statements: string[]): Promise<void> {
  // A closed database's connections end on its worker thread a moment later,
  // checkpointing as they go: wait for their locks as svc itself would.
  const client = openSqliteFile(path, { timeout: 5000 });
  try {
    for (const statement of statements) await client.execute(statement);
  } finally {
    client.close();
  }
}

Deno.test('openDatabase("sqlite://") opens a fresh in-memory database each time', async () => {
  const first = await openDatabase("sqlite://", { localRoot: "/nonexistent" });
  const second = await openDatabase("sqlite://", { localRoot: "/nonexistent" });
  try {
    await first.addChat("ada", chat("c1", []));
    assert.equal((await first.listChats("ada")).length, 1);
    assert.equal((await second.listChats("ada")).length, 0);
    assert.equal(first.name, "sqlite://");
  } finally {
    await first.close();
    await second.close();
  }
});

Deno.test("openDatabase() puts sqlite:///relative/path under the base, creating folders", async () => {
  await using dir = await tmpDir();
  const db = await openDatabase("sqlite:///nested/deeper/svc.db", {
    localRoot: "/nonexistent",
    base: dir.path,
  });
  await db.close();
  assert.ok(await exists(`${dir.path}/nested/deeper/svc.db`));
  assert.equal(db.name, `sqlite:///${dir.path}/nested/deeper/svc.db`);
});

Deno.test("openDatabase() opens sqlite:////absolute/path, a name with spaces and % included", async () => {
  await using dir = await tmpDir();
  const path = `${dir.path}/my data/svc 100%.db`;
  const db = await openDatabase(`sqlite:///${path}`, { localRoot: "/nonexistent", base: "/" });
  await db.close();
  assert.ok(await exists(path));
});

Deno.test("openDatabase() puts an empty URL at <localRoot>/svc.db", async () => {
  await using dir = await tmpDir();
  const db = await openDatabase("", { localRoot: `${dir.path}/root` });
  await db.close();
  assert.ok(await exists(`${dir.path}/root/svc.db`));
});

Deno.test("openDatabase() turns on WAL and foreign keys for a file", async () => {
  await using dir = await tmpDir();
  const db = await openDatabase(`sqlite:///${dir.path}/svc.db`, { localRoot: dir.path });
  await db.close();
  const client = createClient({ url: `file:${dir.path}/svc.db`, timeout: 5000 });
  try {
    assert.equal((await client.execute("PRAGMA journal_mode")).rows[0]!.journal_mode, "wal");
    assert.equal((await client.execute("PRAGMA foreign_keys")).rows[0]!.foreign_keys, 1);
  } finally {
    client.close();
  }
});

Deno.test("openDatabase() on a file it made before keeps every document, chat and message", async () => {
  await using dir = await tmpDir();
  const url = `sqlite:///${dir.path}/svc.db`;
  const d1 = document("d1");
  const created = chat("c1", [d1], {
    prepared: true,
    messages: [message("w", { role: "system" })],
  });
  const answer = message("a", { role: "assistant", sources: [source("s1", d1)] });
  const first = await openDatabase(url, { localRoot: dir.path });
  await first.addDocument("ada", d1);
  await first.addChat("ada", created);
  await first.addMessages("ada", "c1", [answer]);
  await first.close();
  const second = await openDatabase(url, { localRoot: dir.path });
  try {
    assert.deepEqual(await second.getDocument("ada", "d1"), d1);
    assert.deepEqual(await second.listChats("ada"), [
      { ...created, messages: [...created.messages, answer] },
    ]);
  } finally {
    await second.close();
  }
});

Deno.test('openDatabase() refuses "memory" with its replacement and other schemes by name', async () => {
  await assert.rejects(
    openDatabase("memory", { localRoot: "/nonexistent" }),
    svcError(500, 'database_url = "memory" was removed: use "sqlite://" for an in-memory database'),
  );
  await assert.rejects(
    openDatabase("mongodb://x", { localRoot: "/nonexistent" }),
    svcError(
      500,
      /^Cannot open the database "mongodb:\/\/x": the scheme "mongodb" is not supported/,
    ),
  );
});

Deno.test("openDatabase() fails fast with a clear error for a server nobody listens on", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  // Its own timer starts after this one of the same length: only waiting for it comes second.
  const timeout = 30_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise((resolve) => timer = setTimeout(resolve, timeout, "the timeout"));
  const opening = openDatabase(`http://127.0.0.1:${port}`, { localRoot: "/nonexistent", timeout });
  const first = await Promise.race([opening.catch((error) => error), waited])
    .finally(() => clearTimeout(timer));
  const refused = new RegExp(`^Cannot open the database "http://127\\.0\\.0\\.1:${port}": .+`);
  assert.ok(svcError(500, refused)(first));
});

Deno.test("openDatabase() names a server without the password and token of its URL", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  for (const thread of [false, true]) {
    await assert.rejects(
      openDatabase(`http://ada:hunter2@127.0.0.1:${port}/?authToken=secret&tls=0#secret`, {
        localRoot: "/nonexistent",
        timeout: 5000,
        thread,
      }),
      (error: Error) => {
        assert.match(
          error.message,
          new RegExp(`^Cannot open the database "http://127\\.0\\.0\\.1:${port}/": `),
        );
        assert.ok(!/hunter2|secret|ada:/.test(error.message), error.message);
        return true;
      },
    );
  }
});

Deno.test("openDatabase() gives up on a server that never answers after the timeout", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  try {
    await assert.rejects(
      openDatabase(`http://127.0.0.1:${listener.addr.port}`, {
        localRoot: "/nonexistent",
        timeout: 300,
      }),
      svcError(
        503,
        /^Cannot open the database "http:\/\/127\.0\.0\.1:\d+": no answer within 0\.3 s$/,
      ),
    );
  } finally {
    listener.close();
    await accepting.catch(() => {});
    for (const conn of held) conn.close();
  }
});

Deno.test("openDatabase() refuses a database whose schema is newer than this svc", async () => {
  await using dir = await tmpDir();
  const path = `${dir.path}/svc.db`;
  await (await openDatabase(`sqlite:///${path}`, { localRoot: dir.path })).close();
  await sql(path, ["UPDATE svc_schema SET version = 999"]);
  await assert.rejects(
    openDatabase(`sqlite:///${path}`, { localRoot: dir.path }),
    svcError(
      500,
      `Cannot open the database "sqlite:///${path}": its schema version 999 is newer than this svc knows ` +
        `(${MIGRATIONS.at(-1)!.version}); upgrade svc, or point database_url elsewhere`,
    ),
  );
});

Deno.test("openDatabase() refuses a database with tables but no svc schema version, as of svc 0.2.x", async () => {
  await using dir = await tmpDir();
  const path = `${dir.path}/svc.db`;
  await sql(path, [
    "CREATE TABLE users (id CHAR(32) PRIMARY KEY, name VARCHAR NOT NULL)",
    "CREATE TABLE chats (id CHAR(32) PRIMARY KEY, user_id CHAR(32), name VARCHAR)",
  ]);
  await assert.rejects(
    openDatabase(`sqlite:///${path}`, { localRoot: dir.path }),
    svcError(
      500,
      `Cannot open the database "sqlite:///${path}": it holds tables ("chats", "users") but no svc ` +
        "schema version, so it was not made by this svc (a database of svc 0.2.x is not read); " +
        "delete it, or point database_url elsewhere",
    ),
  );
  // Refusing it changed nothing.
  const client = createClient({ url: `file:${path}`, timeout: 5000 });
  const { rows } = await client.execute("SELECT name FROM sqlite_master ORDER BY name");
  client.close();
  assert.deepEqual(rows.map((row) => row.name), [
    "chats",
    "sqlite_autoindex_chats_1",
    "sqlite_autoindex_users_1",
    "users",
  ]);
});

Deno.test("openDatabase() refuses a file that is not a database, naming it", async () => {
  await using dir = await tmpDir();
  const path = `${dir.path}/notes.txt`;
  await Deno.writeTextFile(path, "Not a database at all. ".repeat(100));
  await assert.rejects(
    openDatabase(`sqlite:///${path}`, { localRoot: dir.path }),
    svcError(500, `Cannot open the database "sqlite:///${path}": file is not a database`),
  );
});

Deno.test("openDatabase() turns on incremental vacuum for a new file and for one made without it", async () => {
  await using dir = await tmpDir();
  // As an svc before incremental vacuum made it, with a document.
  const made = `${dir.path}/made-before.db`;
  const old = createClient({ url: `file:${made}` });
  await old.execute("PRAGMA journal_mode = WAL");
  await migrate(old, { name: made });
  await old.execute("INSERT INTO users (name) VALUES ('ada')");
  await old.execute(
    `INSERT INTO documents (id, user_seq, name, metadata) VALUES ('kept', 1, 'kept.md', '{}')`,
  );
  old.close();
  for (const path of [`${dir.path}/new.db`, made]) {
    const db = await openDatabase(`sqlite:///${path}`, { localRoot: dir.path });
    await db.addDocument("ada", document("d1"));
    if (path === made) assert.equal((await db.getDocument("ada", "kept")).name, "kept.md");
    await db.close();
    const client = createClient({ url: `file:${path}`, timeout: 5000 });
    try {
      assert.equal(Number((await client.execute("PRAGMA auto_vacuum")).rows[0]?.[0]), 2, path);
      assert.equal((await client.execute("PRAGMA journal_mode")).rows[0]?.[0], "wal", path);
    } finally {
      client.close();
    }
  }
});

Deno.test("openDatabase() refuses a file on a read-only disk with 503, and opens it once the disk is writable", async () => {
  await using dir = await tmpDir();
  await using disk = await smallDisk(1024 * 1024);
  const made = `${dir.path}/svc.db`;
  const before = await openDatabase(`sqlite:///${made}`, { localRoot: dir.path });
  await before.addDocument("ada", document("d1"));
  await before.close();
  const path = `${disk.path}/svc.db`;
  // Copied, so that no process holds a file of the disk open when it turns read-only.
  for (const suffix of ["", "-wal"]) {
    if (await exists(made + suffix)) await Deno.copyFile(made + suffix, path + suffix);
  }
  // On its thread unless faults are injected, which reach this thread only.
  const options = { localRoot: disk.path, thread: disk.kind === "tmpfs" };
  await disk.readOnly();
  await assert.rejects(
    openDatabase(`sqlite:///${path}`, options),
    svcError(503, `Cannot open the database "sqlite:///${path}": the disk is read-only`),
  );
  await disk.writable();
  const db = await openDatabase(`sqlite:///${path}`, options);
  try {
    await db.addDocument("ada", document("d2"));
    assert.deepEqual((await db.getDocuments("ada", ["d1", "d2"])).map((d) => d.id), ["d1", "d2"]);
  } finally {
    await db.close();
  }
});
