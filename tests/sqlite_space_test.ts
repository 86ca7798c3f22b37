import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { reclaimSpace, useIncrementalVacuum } from "../components/sqlite_space.ts";
import { tmpDir } from "./test_utils.ts";

/** The bytes of a database file and its write-ahead log. */
async function onDisk(path: string): Promise<number> {
  const size = (file: string) => Deno.stat(file).then((s) => s.size, () => 0);
  return await size(path) + await size(`${path}-wal`);
}

Deno.test("reclaimSpace() gives the pages of deleted rows back to the disk", async () => {
  await using dir = await tmpDir();
  const path = `${dir.path}/space.db`;
  const client = createClient({ url: `file:${path}` });
  try {
    await useIncrementalVacuum(client);
    await client.execute("PRAGMA journal_mode = WAL");
    await client.execute("CREATE TABLE t (x TEXT)");
    const row = "x".repeat(4000);
    await client.batch(
      Array.from({ length: 500 }, () => ({ sql: "INSERT INTO t VALUES (?)", args: [row] })),
      "write",
    );
    await reclaimSpace(client);
    const full = await onDisk(path);
    await client.execute("DELETE FROM t");
    const deleted = await onDisk(path);
    await reclaimSpace(client);
    const reclaimed = await onDisk(path);
    assert.ok(deleted >= full / 2, `a deletion alone keeps the pages (${deleted} of ${full})`);
    assert.ok(reclaimed < full / 10, `reclaimed to ${reclaimed} bytes of ${full}`);
    assert.equal((await client.execute("SELECT count(*) AS n FROM t")).rows[0]?.n, 0);
  } finally {
    client.close();
  }
});

Deno.test("useIncrementalVacuum() rewrites a database made without it once, keeping its rows", async () => {
  await using dir = await tmpDir();
  const path = `${dir.path}/old.db`;
  const old = createClient({ url: `file:${path}` });
  await old.execute("PRAGMA journal_mode = WAL");
  await old.execute("CREATE TABLE t (x TEXT)");
  await old.execute("INSERT INTO t VALUES ('kept')");
  assert.equal(Number((await old.execute("PRAGMA auto_vacuum")).rows[0]?.[0]), 0);
  old.close();

  const client = createClient({ url: `file:${path}` });
  try {
    await useIncrementalVacuum(client);
    assert.equal(Number((await client.execute("PRAGMA auto_vacuum")).rows[0]?.[0]), 2);
    assert.deepEqual((await client.execute("SELECT x FROM t")).rows.map((r) => r.x), ["kept"]);
    // Once is enough: a second open finds the mode set.
    await useIncrementalVacuum(client);
    assert.equal(Number((await client.execute("PRAGMA auto_vacuum")).rows[0]?.[0]), 2);
  } finally {
    client.close();
  }
});
