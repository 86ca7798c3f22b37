import assert from "node:assert/strict";
import { openSqliteFile, SqliteError } from "../../../server/database/sqlite_file.ts";
import { tmpDir } from "../../test_utils.ts";

Deno.test("openSqliteFile() gives rows by index and by column name, a column named `at` included", async () => {
  await using dir = await tmpDir();
  const client = openSqliteFile(`${dir.path}/a.db`, { timeout: 1000 });
  try {
    await client.execute("CREATE TABLE t (at INTEGER, keys TEXT)");
    const inserted = await client.execute({ sql: "INSERT INTO t VALUES (?, ?)", args: [5, null] });
    assert.equal(inserted.rowsAffected, 1);
    const { rows, columns } = await client.execute("SELECT at, keys FROM t");
    assert.deepEqual(columns, ["at", "keys"]);
    assert.equal(rows[0]!.at, 5);
    assert.equal(rows[0]![0], 5);
    assert.equal(rows[0]!.keys, null);
    const returned = await client.execute("UPDATE t SET at = at + 1 RETURNING at");
    assert.equal(returned.rowsAffected, 1);
    assert.equal(returned.rows[0]!.at, 6);
  } finally {
    client.close();
  }
});

Deno.test("openSqliteFile() names SQLite's errors as libSQL's client does, and the statement of a batch that failed", async () => {
  await using dir = await tmpDir();
  const client = openSqliteFile(`${dir.path}/a.db`, { timeout: 1000 });
  try {
    await client.execute("CREATE TABLE t (name TEXT UNIQUE)");
    await client.execute("INSERT INTO t VALUES ('ada')");
    const refused = await client.execute("INSERT INTO t VALUES ('ada')").catch((e) => e);
    assert.ok(refused instanceof SqliteError);
    assert.equal(refused.code, "SQLITE_CONSTRAINT");
    assert.equal(refused.extendedCode, "SQLITE_CONSTRAINT_UNIQUE");
    assert.equal(refused.message, "SQLITE_CONSTRAINT: UNIQUE constraint failed: t.name");
    const batch = await client.batch(
      ["INSERT INTO t VALUES ('bob')", "INSERT INTO t VALUES ('ada')"],
      "write",
    ).catch((e) => e);
    assert.equal(batch.statementIndex, 1);
    const { rows } = await client.execute("SELECT name FROM t ORDER BY name");
    assert.deepEqual(rows.map((row) => row.name), ["ada"], "the batch was undone whole");
  } finally {
    client.close();
  }
});

Deno.test("openSqliteFile() reads beside an open write transaction without seeing it, until it commits", async () => {
  await using dir = await tmpDir();
  const client = openSqliteFile(`${dir.path}/a.db`, { timeout: 1000 });
  try {
    await client.execute("PRAGMA journal_mode = WAL");
    await client.execute("CREATE TABLE t (n INTEGER)");
    const tx = await client.transaction("write");
    await tx.execute("INSERT INTO t VALUES (1)");
    const count = async () =>
      Number((await client.batch(["SELECT COUNT(*) FROM t"], "read"))[0]!.rows[0]![0]);
    assert.equal(await count(), 0);
    await tx.commit();
    assert.ok(tx.closed);
    await assert.rejects(tx.execute("SELECT 1"), /TRANSACTION_CLOSED/);
    assert.equal(await count(), 1);

    const undone = await client.transaction("write");
    await undone.execute("INSERT INTO t VALUES (2)");
    await undone.rollback();
    const closed = await client.transaction("write");
    await closed.execute("INSERT INTO t VALUES (3)");
    closed.close();
    assert.equal(await count(), 1, "rolled back, and closed without a commit");
  } finally {
    client.close();
  }
  await assert.rejects(client.execute("SELECT 1"), /The client is closed/);
});

Deno.test("openSqliteFile() waits for another connection's write lock for its timeout, then fails busy", async () => {
  await using dir = await tmpDir();
  const path = `${dir.path}/a.db`;
  const holder = openSqliteFile(path, { timeout: 1000 });
  const waiter = openSqliteFile(path, { timeout: 100 });
  try {
    await holder.execute("CREATE TABLE t (n INTEGER)");
    const tx = await holder.transaction("write");
    const started = Date.now();
    const busy = await waiter.execute("INSERT INTO t VALUES (1)").catch((e) => e);
    assert.ok(Date.now() - started >= 90, "it waited");
    assert.equal(busy.code, "SQLITE_BUSY");
    await tx.rollback();
    await waiter.execute("INSERT INTO t VALUES (1)");
  } finally {
    holder.close();
    waiter.close();
  }
});

Deno.test("executeMultiple() steps a statement through all its rows: incremental vacuum frees every page", async () => {
  await using dir = await tmpDir();
  const path = `${dir.path}/a.db`;
  const client = openSqliteFile(path, { timeout: 1000 });
  try {
    await client.execute("PRAGMA auto_vacuum = INCREMENTAL");
    await client.execute("CREATE TABLE t (x TEXT)");
    await client.execute({ sql: "INSERT INTO t VALUES (?)", args: ["x".repeat(1_000_000)] });
    await client.execute("DELETE FROM t");
    const free = async () => Number((await client.execute("PRAGMA freelist_count")).rows[0]![0]);
    assert.ok(await free() > 100);
    await client.executeMultiple("PRAGMA incremental_vacuum;");
    assert.equal(await free(), 0);
  } finally {
    client.close();
  }
});
