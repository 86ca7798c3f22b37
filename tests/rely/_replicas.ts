/**
 * `svc api` replicas on one PostgreSQL database, as separate processes with
 * local roots of their own (so that nothing reaches one replica through
 * another's disk), configured with the test components of `_components.ts`,
 * for the replica tests and the benchmark of replicas.
 * @module
 */
import { join } from "node:path";
import { freePort, startProcess } from "../_process.ts";
import { type Svc, writeComponents } from "./_server.ts";

/** Options of {@linkcode startReplica}. */
export interface StartReplicaOptions {
  /** The API's `database_url`: the replicas' shared PostgreSQL database. */
  databaseUrl: string;
  /** Extra environment variables of the process. */
  env?: Record<string, string>;
  /**
   * The port; pass the one of an earlier run to restart on the same URL.
   * @default {a free port}
   */
  port?: number;
  /**
   * `deno run` and its flags, before `main.ts`.
   * @default {startProcess's}
   */
  run?: readonly string[];
}

/**
 * The variables of `_process.ts`'s fixed secrets, unset: replicas keep the
 * secrets they make in the database, which is what these tests check.
 */
export const NO_SECRETS: Record<string, string> = {
  SVC_API_DOCUMENT_UPLOAD_SECRET: "",
  SVC_DEMO_AUTHENTICATION_SECRET: "",
};

/**
 * Starts one replica with its configuration and local root in `dir`, the
 * assistant `Test/Numbered` and the source storages `Test/SlowStorage` and
 * `Postgres` (in the replicas' database), and waits until `/health` answers.
 */
export async function startReplica(dir: string, options: StartReplicaOptions): Promise<Svc> {
  const port = options.port ?? freePort();
  await Deno.mkdir(dir, { recursive: true });
  await writeComponents(dir);
  const config = join(dir, "svc.toml");
  await Deno.writeTextFile(
    config,
    [
      'local_root = "root"',
      'source_storages = ["./slow.ts#SlowStorage", "svc.source_storages.Postgres"]',
      'assistants = ["./slow.ts#Slow"]',
      "[api]",
      'hostname = "127.0.0.1"',
      `port = ${port}`,
      `database_url = ${JSON.stringify(options.databaseUrl)}`,
      "",
    ].join("\n"),
  );
  const base = `http://127.0.0.1:${port}`;
  const svc = await startProcess(["api", "-c", config], {
    health: base,
    env: { ...NO_SECRETS, ...options.env },
    ...(options.run ? { run: options.run } : {}),
  });
  return Object.assign(svc, { base, root: join(dir, "root") });
}

/** A set of replicas; disposing of it kills those still running. */
export interface ReplicaSet extends AsyncDisposable {
  replicas: Svc[];
}

/** Starts `count` replicas at once on the database, each in `<dir>/replica-<i>`. */
export async function startReplicaSet(
  dir: string,
  count: number,
  options: StartReplicaOptions,
): Promise<ReplicaSet> {
  const started = await Promise.allSettled(
    Array.from({ length: count }, (_, i) => startReplica(join(dir, `replica-${i}`), options)),
  );
  const replicas = started.flatMap((result) => result.status === "fulfilled" ? [result.value] : []);
  const dispose = async () => {
    await Promise.all(replicas.map((replica) => replica.stop("SIGKILL")));
  };
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    await dispose();
    throw (failed as PromiseRejectedResult).reason;
  }
  return { replicas, [Symbol.asyncDispose]: dispose };
}
