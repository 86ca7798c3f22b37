/**
 * A throw-away PostgreSQL cluster for the tests: its own data folder under a
 * temporary folder, its own port on 127.0.0.1 and socket folder, fsync off,
 * run as the `postgres` user when the tests run as root (PostgreSQL refuses
 * to run as root), stopped and removed at the end. Each test gets a fresh
 * database of it. The `vector` extension is loaded into every new database
 * when the cluster has it (Debian's `postgresql-15` does not carry it; see
 * `.ci/run`).
 *
 * Tests that need PostgreSQL are skipped when it is not installed, unless
 * env `SVC_REQUIRE_POSTGRES=1` (CI) makes that a failure.
 * @module
 */
import type * as Postgres from "npm:postgres@3.4.9";
import { importPackage } from "../components/packages.ts";
import { freePort, run } from "./_process.ts";
import { integration, refuseInUnitTier, unitTier } from "./_tier.ts";

/** The `postgres` package's client. */
export type Sql = Postgres.Sql;

/** How long initdb, a start or a stop may take before the test fails, in milliseconds. */
const DEADLINE = 120_000;

/** The prefix of every cluster's temporary folder, so that an abandoned one can be found. */
const PREFIX = "svc-postgres-";

/** A database of a {@linkcode PostgresCluster}. */
export interface PostgresDatabase {
  /** Its name in the cluster. */
  name: string;
  /** `postgresql://postgres@127.0.0.1:<port>/<name>`, as svc's `database_url` takes it. */
  url: string;
}

/** Options of {@linkcode PostgresCluster.database}. */
export interface DatabaseOptions {
  /**
   * Whether the database has the `vector` extension; `false` gives a database
   * without it even when the cluster has it.
   * @default {cluster.vector}
   */
  vector?: boolean;
}

/** A running cluster; disposing of it stops it and removes its folder. */
export interface PostgresCluster extends AsyncDisposable {
  /** `127.0.0.1`. */
  host: string;
  port: number;
  /** The superuser, who connects without a password. */
  user: string;
  /** The folder of its unix socket. */
  socketDir: string;
  /** Its version, such as `15.20`. */
  version: string;
  /** Whether the `vector` extension (pgvector) is available, and so loaded into new databases. */
  vector: boolean;
  /** The URL of its database `postgres`. */
  url: string;
  /** Creates a fresh database. */
  database(options?: DatabaseOptions): Promise<PostgresDatabase>;
  /** Drops a database, closing the connections still open to it. */
  drop(database: PostgresDatabase): Promise<void>;
  /** What the server wrote to its log so far. */
  log(): Promise<string>;
  /**
   * Restarts the server as an operator does (`pg_ctl restart -m fast`): every
   * connection is ended at once, and the server answers again once this returns.
   */
  restart(): Promise<void>;
  /**
   * Stops the server (`pg_ctl stop -m fast`), runs `work`, and starts the
   * server again on the same port with the same data, whatever `work` did.
   */
  whileDown<T>(work: () => Promise<T>): Promise<T>;
  /** Stops the server and removes its folder; again, it does nothing. */
  stop(): Promise<void>;
}

/** The folder of PostgreSQL's programs: env `SVC_POSTGRES_BIN`, else Debian's, 15 first. */
export function findPostgres(): string | undefined {
  const candidates = [Deno.env.get("SVC_POSTGRES_BIN")];
  for (const version of ["15", "16", "17", "18"]) {
    candidates.push(`/usr/lib/postgresql/${version}/bin`);
  }
  return candidates.find((folder) =>
    folder && exists(`${folder}/initdb`) && exists(`${folder}/pg_ctl`)
  );
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether env `SVC_REQUIRE_POSTGRES=1` makes a missing PostgreSQL a failure. */
export function postgresRequired(): boolean {
  return Deno.env.get("SVC_REQUIRE_POSTGRES") === "1";
}

/** Opens a client of `url` with svc's quiet settings; end it with `sql.end()`. */
export async function connect(url: string, options: Postgres.Options<never> = {}): Promise<Sql> {
  const { default: postgres } = await importPackage<typeof Postgres>("postgres");
  return postgres(url, { onnotice: () => {}, max: 1, ...options });
}

/**
 * Starts a cluster. Run as root, its folder belongs to the `postgres` user
 * and its programs run as that user through runuser. `bin` is the folder of
 * PostgreSQL's programs, by default {@linkcode findPostgres}'s.
 *
 * @throws {Error} naming what to install when PostgreSQL is missing, with
 * the server's log when it does not start, and in the unit tier
 */
export async function startPostgres(options: { bin?: string } = {}): Promise<PostgresCluster> {
  refuseInUnitTier("PostgreSQL");
  const bin = options.bin ?? findPostgres();
  if (!bin || !exists(`${bin}/initdb`)) {
    throw new Error(
      `PostgreSQL was not found in ${bin ?? "/usr/lib/postgresql/<version>/bin"} ` +
        "(set env SVC_POSTGRES_BIN to another folder): " +
        "apt-get install -y --no-install-recommends postgresql-15",
    );
  }
  await sweepAbandoned(bin);
  const root = await Deno.makeTempDir({ prefix: PREFIX });
  try {
    await Deno.writeTextFile(`${root}/owner`, String(Deno.pid));
    const data = `${root}/data`;
    const socketDir = `${root}/socket`;
    await Deno.mkdir(socketDir);
    const asUser = await postgresUser();
    if (asUser) {
      for (const path of [root, socketDir]) await Deno.chown(path, asUser.uid, asUser.gid);
    }
    const initdb = await pgRun(bin, "initdb", [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ]);
    if (initdb.code !== 0) {
      throw new Error(`initdb failed (code ${initdb.code}):\n${initdb.stdout}\n${initdb.stderr}`);
    }
    const port = await startServer(bin, root, data, socketDir);
    const url = databaseUrl(port, "postgres");
    const admin = await connect(url);
    let version: string;
    let vector: boolean;
    try {
      const [shown] = await admin<{ server_version: string }[]>`SHOW server_version`;
      version = shown!.server_version;
      const [available] = await admin`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`;
      vector = available !== undefined;
    } finally {
      await admin.end();
    }
    if (vector) {
      // Every CREATE DATABASE copies template1, so each new database has the extension.
      const template = await connect(databaseUrl(port, "template1"));
      try {
        await template`CREATE EXTENSION IF NOT EXISTS vector`;
      } finally {
        await template.end();
      }
    }
    return cluster({
      bin,
      root,
      data,
      socketDir,
      port,
      url,
      version: version.split(" ")[0]!,
      vector,
    });
  } catch (error) {
    await stopServer(bin, root).catch(() => {});
    await Deno.remove(root, { recursive: true }).catch(() => {});
    throw error;
  }
}

let shared: Promise<PostgresCluster> | undefined;

/**
 * A test that needs PostgreSQL, given a fresh database of a cluster that the
 * test file shares (started by its first such test, stopped after its last).
 * Skipped when PostgreSQL is not installed, unless env
 * `SVC_REQUIRE_POSTGRES=1` (CI) makes that a failure; left out of the unit tier.
 *
 * @example
 * ```ts ignore
 * postgresTest("a table of one row", async (database) => {
 *   const sql = await connect(database.url);
 *   try {
 *     assert.deepEqual([...await sql`SELECT 1 AS one`], [{ one: 1 }]);
 *   } finally {
 *     await sql.end();
 *   }
 * });
 * ```
 */
export function postgresTest(
  name: string,
  fn: (database: PostgresDatabase, cluster: PostgresCluster) => Promise<void>,
  options: DatabaseOptions & { ignore?: boolean } = {},
): void {
  const installed = findPostgres() !== undefined;
  const skip = !installed && !postgresRequired();
  if (skip && !options.ignore && !unitTier()) {
    console.warn(
      `Skipping "${name}": no PostgreSQL in /usr/lib/postgresql/<version>/bin (apt-get install ` +
        `postgresql-15, or set SVC_POSTGRES_BIN); set SVC_REQUIRE_POSTGRES=1 to make this a failure`,
    );
  }
  integration.test({
    name,
    ignore: skip || options.ignore,
    async fn() {
      const cluster = await sharedCluster();
      const database = await cluster.database(options);
      try {
        await fn(database, cluster);
      } finally {
        await cluster.drop(database);
      }
    },
  });
}

// Registered as this module loads: a hook registered during a test (at the cluster's start) is
// never run, and each file's cluster ran on until the next run swept it.
Deno.test.afterAll(async () => {
  const started = shared;
  shared = undefined;
  await (await started?.catch(() => undefined))?.stop();
});

/** The cluster of this test file, started on first use and stopped after the file's tests. */
export function sharedCluster(): Promise<PostgresCluster> {
  return shared ??= startPostgres();
}

interface Parts {
  bin: string;
  root: string;
  data: string;
  socketDir: string;
  port: number;
  url: string;
  version: string;
  vector: boolean;
}

function cluster(parts: Parts): PostgresCluster {
  let count = 0;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      try {
        await stopServer(parts.bin, parts.root);
      } finally {
        await Deno.remove(parts.root, { recursive: true });
      }
    })();
  return {
    host: "127.0.0.1",
    port: parts.port,
    user: "postgres",
    socketDir: parts.socketDir,
    version: parts.version,
    vector: parts.vector,
    url: parts.url,
    async database(options = {}) {
      // The pid keeps the names of two test files' clusters apart in their logs.
      const name = `test_${Deno.pid}_${++count}`;
      const withVector = options.vector ?? parts.vector;
      if (withVector && !parts.vector) {
        throw new Error(
          "This PostgreSQL has no vector extension (pgvector): run .ci/setup-pgvector.sh as root",
        );
      }
      const admin = await connect(parts.url);
      try {
        const template = withVector ? "template1" : "template0";
        await admin.unsafe(`CREATE DATABASE "${name}" TEMPLATE ${template}`);
      } finally {
        await admin.end();
      }
      return { name, url: databaseUrl(parts.port, name) };
    },
    async drop(database) {
      const admin = await connect(parts.url);
      try {
        await admin.unsafe(`DROP DATABASE IF EXISTS "${database.name}" WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
    log: () => readLog(parts.root),
    async restart() {
      await succeeds(
        "restart",
        pgCtl(parts.bin, parts.root, parts.data, ["-m", "fast", "restart"]),
      );
    },
    async whileDown(work) {
      await succeeds("stop", pgCtl(parts.bin, parts.root, parts.data, ["-m", "fast", "stop"]));
      try {
        return await work();
      } finally {
        const options = serverOptions(parts.port, parts.socketDir);
        await succeeds("start", pgCtl(parts.bin, parts.root, parts.data, ["-o", options, "start"]));
      }
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

function databaseUrl(port: number, name: string): string {
  return `postgresql://postgres@127.0.0.1:${port}/${name}`;
}

/** Starts the server on a free port; another process may take the port first, so it tries three. */
async function startServer(
  bin: string,
  root: string,
  data: string,
  socketDir: string,
): Promise<number> {
  let failure = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = freePort();
    const started = await pgCtl(bin, root, data, [
      "-o",
      serverOptions(port, socketDir),
      "start",
    ]);
    if (started.code === 0) return port;
    failure =
      `pg_ctl start failed (code ${started.code}):\n${started.stdout}\n${started.stderr}\n` +
      `The server's log:\n${await readLog(root)}`;
    if (!/could not bind|address already in use/i.test(failure)) break;
  }
  throw new Error(failure);
}

/** The server's settings, as `pg_ctl -o` takes them. */
function serverOptions(port: number, socketDir: string): string {
  return [
    `-p ${port}`,
    `-k ${socketDir}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
    // Test files run their clusters side by side: each keeps little in memory.
    "-c shared_buffers=32MB",
  ].join(" ");
}

/**
 * Runs `pg_ctl` on the cluster, waiting for it to start or stop, its server's
 * output to the log file: without it the server would write to this pipe,
 * which then stays open.
 */
async function pgCtl(bin: string, root: string, data: string, args: string[]) {
  const seconds = String(DEADLINE / 1000);
  return await pgRun(bin, "pg_ctl", [
    "-D",
    data,
    "-l",
    `${root}/log`,
    "-w",
    "-t",
    seconds,
    ...args,
  ]);
}

/** Stops the server of `root` if it runs: fast, then immediate, then SIGKILL. */
async function stopServer(bin: string, root: string): Promise<void> {
  const data = `${root}/data`;
  if (!exists(`${data}/postmaster.pid`)) return;
  for (const mode of ["fast", "immediate"]) {
    const stopped = await pgRun(bin, "pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"])
      .catch(() => undefined);
    if (stopped?.code === 0 || !exists(`${data}/postmaster.pid`)) return;
  }
  const pid = Number((await Deno.readTextFile(`${data}/postmaster.pid`)).split("\n")[0]);
  if (pid > 0) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // It ended meanwhile.
    }
  }
}

/**
 * Stops and removes the clusters of test processes that ended without
 * stopping theirs (killed by a deadline, say), so that none runs on for ever.
 */
async function sweepAbandoned(bin: string): Promise<void> {
  const tmp = Deno.env.get("TMPDIR") ?? "/tmp";
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(tmp));
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!entry.isDirectory || !entry.name.startsWith(PREFIX)) continue;
    const root = `${tmp}/${entry.name}`;
    const owner = await Deno.readTextFile(`${root}/owner`).catch(() => undefined);
    if (owner === undefined || exists(`/proc/${owner.trim()}`)) continue;
    await stopServer(bin, root).catch(() => {});
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

/** Runs one of PostgreSQL's programs, as the `postgres` user when this process is root. */
async function pgRun(bin: string, program: string, args: string[]) {
  const asUser = await postgresUser();
  const command = asUser ? "runuser" : `${bin}/${program}`;
  const full = asUser ? ["-u", "postgres", "--", `${bin}/${program}`, ...args] : args;
  return await run(command, full, { deadline: DEADLINE, cwd: "/" });
}

let user: Promise<{ uid: number; gid: number } | undefined> | undefined;

/** The `postgres` user's ids when this process is root; undefined when it is not root. */
function postgresUser(): Promise<{ uid: number; gid: number } | undefined> {
  return user ??= (async () => {
    if (Deno.uid() !== 0) return undefined;
    const passwd = await Deno.readTextFile("/etc/passwd");
    const line = passwd.split("\n").find((line) => line.startsWith("postgres:"));
    if (!line) {
      throw new Error(
        "Running as root, PostgreSQL needs the user postgres, which Debian's postgresql-15 creates",
      );
    }
    const [, , uid, gid] = line.split(":");
    return { uid: Number(uid), gid: Number(gid) };
  })();
}

/** Waits for a `pg_ctl` command; fails with its output and the server's log when it failed. */
async function succeeds(what: string, command: ReturnType<typeof pgCtl>): Promise<void> {
  const ended = await command;
  if (ended.code !== 0) {
    throw new Error(
      `pg_ctl ${what} failed (code ${ended.code}):\n${ended.stdout}\n${ended.stderr}`,
    );
  }
}

async function readLog(root: string): Promise<string> {
  return await Deno.readTextFile(`${root}/log`).catch((error) => `(no log: ${error.message})`);
}
