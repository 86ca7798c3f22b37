/**
 * The tests' throw-away PostgreSQL cluster: fresh databases, the vector
 * extension reported as the cluster has it, a file's cluster stopped after its
 * tests, a folder removed at the end even when the server was killed, and the
 * output of a failed start in its error.
 * @module
 */
import assert from "node:assert/strict";
import {
  connect,
  findPostgres,
  postgresRequired,
  postgresTest,
  startPostgres,
} from "./_postgres.ts";
import { denoArgs, run } from "./_process.ts";
import { tmpDir } from "./test_utils.ts";
import { integration } from "./_tier.ts";

postgresTest(
  "each test gets a fresh, empty database of the file's cluster",
  async (database, cluster) => {
    assert.match(
      database.url,
      new RegExp(`^postgresql://postgres@127\\.0\\.0\\.1:${cluster.port}/`),
    );
    const sql = await connect(database.url);
    try {
      const tables = await sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`;
      assert.equal(tables.length, 0);
      await sql`CREATE TABLE kept (id int)`;
      const [current] = await sql`SELECT current_database() AS name`;
      assert.equal(current?.name, database.name);
      const [setting] = await sql`SHOW fsync`;
      assert.equal(setting?.fsync, "off");
    } finally {
      await sql.end();
    }
    const other = await cluster.database();
    assert.notEqual(other.name, database.name);
    const sql2 = await connect(other.url);
    try {
      assert.equal((await sql2`SELECT 1 FROM pg_tables WHERE tablename = 'kept'`).length, 0);
    } finally {
      await sql2.end();
      await cluster.drop(other);
    }
  },
);

postgresTest(
  "the vector extension is in each new database exactly when the cluster has it",
  async (database, cluster) => {
    const sql = await connect(database.url);
    try {
      const loaded = await sql`SELECT extversion FROM pg_extension WHERE extname = 'vector'`;
      assert.equal(loaded.length > 0, cluster.vector);
      if (cluster.vector) {
        const [row] = await sql`SELECT '[1,0]'::vector <=> '[0,1]'::vector AS distance`;
        assert.equal(row?.distance, 1);
      }
    } finally {
      await sql.end();
    }
    const without = await cluster.database({ vector: false });
    const plain = await connect(without.url);
    try {
      assert.equal((await plain`SELECT 1 FROM pg_extension WHERE extname = 'vector'`).length, 0);
    } finally {
      await plain.end();
      await cluster.drop(without);
    }
    console.log(
      `PostgreSQL ${cluster.version}, vector extension: ${cluster.vector ? "yes" : "no"}`,
    );
  },
);

postgresTest(
  "a dropped database closes the connections still open to it",
  async (_database, cluster) => {
    const doomed = await cluster.database();
    const sql = await connect(doomed.url);
    try {
      await sql`SELECT 1`;
      await cluster.drop(doomed);
      await assert.rejects(sql`SELECT 1`);
    } finally {
      await sql.end();
    }
  },
);

const installed = findPostgres() !== undefined || postgresRequired();

integration.test({
  name: "a cluster whose server was killed is still removed, and stopping twice is harmless",
  ignore: !installed,
  async fn() {
    const cluster = await startPostgres();
    const root = cluster.socketDir.replace(/\/socket$/, "");
    const pid = Number((await Deno.readTextFile(`${root}/data/postmaster.pid`)).split("\n")[0]);
    Deno.kill(pid, "SIGKILL");
    await cluster.stop();
    await cluster.stop();
    await assert.rejects(Deno.stat(root), Deno.errors.NotFound);
  },
});

integration.test({
  name: "a test file's cluster is stopped and removed when its tests end",
  ignore: !installed,
  async fn() {
    await using folder = await tmpDir();
    const file = `${folder.path}/uses_postgres_test.ts`;
    await Deno.writeTextFile(
      file,
      `import { postgresTest } from "${import.meta.resolve("./_postgres.ts")}";\n` +
        `postgresTest("prints its cluster", async (_database, cluster) => {\n` +
        `  console.log("SOCKET " + cluster.socketDir);\n` +
        `});\n`,
    );
    const ended = await run(Deno.execPath(), denoArgs("test", "-A", file));
    assert.equal(ended.code, 0, ended.stdout + ended.stderr);
    const socketDir = /SOCKET (\S+)/.exec(ended.stdout)?.[1];
    assert.ok(socketDir, ended.stdout);
    await assert.rejects(Deno.stat(socketDir.replace(/\/socket$/, "")), Deno.errors.NotFound);
  },
});

integration.test({
  name: "a start that fails says what initdb or the server wrote, and leaves no folder",
  ignore: !installed,
  async fn() {
    await using bin = await tmpDir();
    // Run as root, the scripts run as the postgres user, who writes down what it was given.
    await Deno.chmod(bin.path, 0o777);
    const script = async (name: string, text: string) => {
      await Deno.writeTextFile(`${bin.path}/${name}`, `#!/bin/sh\n${text}\n`);
      await Deno.chmod(`${bin.path}/${name}`, 0o755);
    };
    const seen = `${bin.path}/seen`;
    await script("initdb", `echo "$2" > ${seen}; echo 'initdb: disk quota exceeded' >&2; exit 1`);
    await script("pg_ctl", "exit 1");
    await assert.rejects(
      startPostgres({ bin: bin.path }),
      /initdb failed[\s\S]*disk quota exceeded/,
    );
    await assertRemoved(seen);
    // initdb succeeds, and the server cannot start: its log is in the error.
    await script("initdb", `echo "$2" > ${seen}; mkdir -p "$2"`);
    await script("pg_ctl", 'echo "FATAL:  the server is out of shared memory" > "$4"; exit 1');
    await assert.rejects(
      startPostgres({ bin: bin.path }),
      /pg_ctl start failed[\s\S]*out of shared memory/,
    );
    await assertRemoved(seen);
  },
});

integration.test({
  name: "a missing PostgreSQL is an error that names the package to install",
  async fn() {
    await using empty = await tmpDir();
    await assert.rejects(startPostgres({ bin: `${empty.path}/none` }), /postgresql-15/);
  },
});

/** Asserts that the cluster folder of the data folder named in the file `seen` is gone. */
async function assertRemoved(seen: string): Promise<void> {
  const data = (await Deno.readTextFile(seen)).trim();
  assert.match(data, /\/svc-postgres-[^/]+\/data$/);
  await assert.rejects(Deno.stat(data.replace(/\/data$/, "")), Deno.errors.NotFound);
}
