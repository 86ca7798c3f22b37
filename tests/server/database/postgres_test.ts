/**
 * What only the PostgreSQL database does: its schema follows libSQL's
 * migrations version for version, replicas that start at once migrate once,
 * it keeps uploaded files in chunks and signing secrets for every replica,
 * and a connection cut off halfway leaves nothing half-written.
 * @module
 */
import { createClient } from "@libsql/client";
import assert from "node:assert/strict";
import { join } from "node:path";
import { MIGRATIONS, openDatabase } from "../../../server/database/mod.ts";
import { migrate } from "../../../server/database/migrations.ts";
import { FILE_CHUNK_BYTES } from "../../../server/database/postgres_files.ts";
import {
  POSTGRES_MIGRATIONS,
  POSTGRES_ONLY_MIGRATIONS,
} from "../../../server/database/postgres_migrations.ts";
import { connect, postgresTest, type Sql } from "../../_postgres.ts";
import { tmpDir } from "../../test_utils.ts";
import { chat, document, message, svcError } from "./_helpers.ts";

/** The tables that only PostgreSQL keeps. */
const ONLY = ["document_files", "document_file_sizes", "signing_secrets"];

postgresTest(
  "the PostgreSQL schema has libSQL's versions, tables and columns",
  async (database) => {
    assert.deepEqual(
      POSTGRES_MIGRATIONS.map((m) => m.version),
      MIGRATIONS.map((m) => m.version),
      "append to POSTGRES_MIGRATIONS what was appended to MIGRATIONS",
    );
    const client = createClient({ url: ":memory:" });
    const sqlite = new Set<string>();
    try {
      await migrate(client, { name: "sqlite://" });
      const tables = await client.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
      );
      for (const { name } of tables.rows) {
        const columns = await client.execute(`SELECT name FROM pragma_table_info('${name}')`);
        for (const column of columns.rows) sqlite.add(`${name}.${column.name}`);
      }
    } finally {
      client.close();
    }
    const db = await openDatabase(database.url, { localRoot: "/nonexistent" });
    await db.close();
    const sql = await connect(database.url);
    try {
      const rows = await sql`SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'public'`;
      const postgres = new Set(
        rows.filter((row) => !ONLY.includes(row.table_name))
          .map((row) => `${row.table_name}.${row.column_name}`),
      );
      assert.deepEqual([...postgres].sort(), [...sqlite].sort());
      const versions = await sql`SELECT id, version FROM svc_schema ORDER BY id`;
      assert.deepEqual(versions.map((row) => [row.id, row.version]), [
        [1, MIGRATIONS.at(-1)!.version],
        [2, POSTGRES_ONLY_MIGRATIONS.at(-1)!.version],
      ]);
    } finally {
      await sql.end();
    }
  },
);

postgresTest("replicas that open a new database at once migrate it once", async (database) => {
  const opened = await Promise.all(
    Array.from({ length: 4 }, () => openDatabase(database.url, { localRoot: "/nonexistent" })),
  );
  try {
    await opened[0]!.addDocument("ada", document("d1"));
    assert.equal((await opened[3]!.getDocument("ada", "d1")).id, "d1");
  } finally {
    await Promise.all(opened.map((db) => db.close()));
  }
});

postgresTest(
  "a database with a newer schema, or svc's tables but no version, is refused",
  async (database, cluster) => {
    const db = await openDatabase(database.url, { localRoot: "/nonexistent" });
    await db.close();
    await withSql(database.url, (sql) => sql`UPDATE svc_schema SET version = 99 WHERE id = 1`);
    await assert.rejects(
      openDatabase(database.url, { localRoot: "/nonexistent" }),
      svcError(500, /its schema version 99 is newer than this svc knows \(\d+\); upgrade svc/),
    );
    const other = await cluster.database();
    try {
      await withSql(other.url, (sql) => sql`CREATE TABLE users (id int)`);
      await assert.rejects(
        openDatabase(other.url, { localRoot: "/nonexistent" }),
        svcError(500, /holds tables \("users"\) but no svc schema version/),
      );
    } finally {
      await cluster.drop(other);
    }
  },
);

Deno.test("openDatabase() answers 503 for a PostgreSQL server nobody listens on, without its password", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  await assert.rejects(
    openDatabase(`postgresql://svc:hunter2@127.0.0.1:${port}/svc`, {
      localRoot: "/nonexistent",
      timeout: 5000,
    }),
    (error: Error) => {
      assert.ok(
        svcError(
          503,
          new RegExp(`^Cannot open the database "postgresql://127\\.0\\.0\\.1:${port}/svc": `),
        )(error),
      );
      assert.ok(!error.message.includes("hunter2"), error.message);
      return true;
    },
  );
});

postgresTest(
  "an uploaded file is kept in chunks once, and written out where it is missing",
  async (database) => {
    await using dir = await tmpDir();
    const db = await openDatabase(database.url, { localRoot: dir.path });
    try {
      const bytes = new Uint8Array(FILE_CHUNK_BYTES * 2 + 123);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) % 251;
      const path = join(dir.path, "d1");
      await Deno.writeFile(path, bytes);
      const stored = { id: "d1", name: "big.pdf", metadata: { path } };
      await db.addDocument("ada", stored);
      assert.equal(await db.hasFile!("d1"), false);
      await db.keepFile!("ada", "d1", path);
      assert.equal(await db.hasFile!("d1"), true);
      await assert.rejects(db.keepFile!("ada", "d1", path), svcError(409, /has its file already/));
      await assert.rejects(db.keepFile!("bob", "d1", path), svcError(404, 'No document "d1"'));
      await withSql(database.url, async (sql) => {
        const chunks =
          await sql`SELECT octet_length(data) AS n FROM document_files ORDER BY position`;
        assert.deepEqual(chunks.map((row) => row.n), [FILE_CHUNK_BYTES, FILE_CHUNK_BYTES, 123]);
      });
      // Another replica, whose local root lacks the file, reads its own copy.
      await Deno.remove(path);
      const never = document("never-uploaded");
      const local = await db.localFiles!([stored, never]);
      const copy = join(dir.path, "documents", "d1");
      assert.deepEqual(local, [{ ...stored, metadata: { path: copy } }, never]);
      assert.deepEqual(await Deno.readFile(copy), bytes);
      assert.deepEqual(await db.localFiles!([stored]), [local[0]], "written once");
      const names = await Array.fromAsync(Deno.readDir(join(dir.path, "documents")));
      assert.deepEqual(names.map((entry) => entry.name), ["d1"]);
      // The chunks go with their document, and so does this replica's copy.
      await db.deleteDocument("ada", "d1");
      await assert.rejects(Deno.stat(copy), Deno.errors.NotFound);
      await withSql(database.url, async (sql) => {
        assert.equal((await sql`SELECT 1 FROM document_files`).length, 0);
      });
    } finally {
      await db.close();
    }
  },
);

postgresTest(
  "a file cut off halfway, on its way in or out, leaves nothing of it",
  async (database) => {
    await using dir = await tmpDir();
    const db = await openDatabase(database.url, { localRoot: dir.path });
    try {
      const path = join(dir.path, "d1");
      const size = FILE_CHUNK_BYTES * 24;
      await Deno.writeFile(path, new Uint8Array(size).fill(7));
      const stored = { id: "d1", name: "big.pdf", metadata: { path } };
      await db.addDocument("ada", stored);
      // In: the connection is ended while the chunks go in.
      const keeping = settle(db.keepFile!("ada", "d1", path));
      await killWhen(database.url, "INSERT INTO document_files");
      assert.match(String(await keeping), /^SvcError: Cannot write to the database/);
      assert.equal(await db.hasFile!("d1"), false);
      await db.keepFile!("ada", "d1", path);
      // Out: the connection is ended while the chunks come out.
      await Deno.remove(path);
      const fetching = settle(db.localFiles!([stored]));
      await killWhen(database.url, "SELECT data FROM document_files");
      // A cursor whose connection ends may end early rather than fail: the size tells.
      assert.match(
        String(await fetching),
        /^SvcError: (Cannot read from the database|The file of "big\.pdf" in the database has)/,
      );
      assert.deepEqual(await Array.fromAsync(Deno.readDir(join(dir.path, "documents"))), []);
      const [local] = await db.localFiles!([stored]);
      assert.equal((await Deno.stat(local!.metadata.path as string)).size, size);
    } finally {
      await db.close();
    }
  },
);

postgresTest(
  "text PostgreSQL cannot store (a NUL character) is refused with 422, saving nothing",
  async (database) => {
    const db = await openDatabase(database.url, { localRoot: "/nonexistent" });
    try {
      await db.addChat("ada", chat("c1", [], { prepared: true }));
      await assert.rejects(
        db.addMessages("ada", "c1", [message("m1"), message("m2", { content: "a\u0000b" })]),
        svcError(422, /^Cannot save message "m2": the text holds a character the database/),
      );
      assert.deepEqual((await db.getChat("ada", "c1")).messages, []);
    } finally {
      await db.close();
    }
  },
);

postgresTest(
  "a signing secret is kept once, and every replica gets the first",
  async (database) => {
    const replicas = await Promise.all(
      [1, 2, 3].map(() => openDatabase(database.url, { localRoot: "/nonexistent" })),
    );
    try {
      const kept = await Promise.all(
        replicas.map((db, i) => db.keepSecret!("session.key", `secret-${i}`)),
      );
      assert.equal(new Set(kept).size, 1);
      assert.match(kept[0]!, /^secret-[0-2]$/);
      assert.equal(await replicas[1]!.keepSecret!("session.key", "later"), kept[0]);
      assert.equal(await replicas[1]!.keepSecret!("upload.key", "other"), "other");
    } finally {
      await Promise.all(replicas.map((db) => db.close()));
    }
  },
);

/** The error the promise fails with, handled at once; `"fulfilled"` if it does not fail. */
function settle(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => "fulfilled", (error) => error);
}

async function withSql<T>(url: string, work: (sql: Sql) => Promise<T>): Promise<T> {
  const sql = await connect(url);
  try {
    return await work(sql);
  } finally {
    await sql.end();
  }
}

/** Ends the connections to the database once one of them runs a statement that starts so. */
async function killWhen(url: string, statement: string): Promise<void> {
  await withSql(url, async (sql) => {
    for (let i = 0; i < 2000; i++) {
      const killed = await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid != pg_backend_pid()
          AND query LIKE ${statement + "%"}`;
      if (killed.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`No connection ran ${statement}`);
  });
}
