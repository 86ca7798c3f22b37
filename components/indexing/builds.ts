/**
 * Who builds an index, and whether that build still runs. An index is written
 * in batches, so a build that ends before it is complete (a crash, a full
 * disk, SIGKILL) leaves rows that no chat will ever use. Each build names its
 * builder and writes a heartbeat with every batch; a build is abandoned, and
 * its rows are removed where they are found, as soon as it is known to have
 * stopped:
 *
 * - a build of this process: when it no longer runs here (it is marked as
 *   running before its first row is written);
 * - a build of another process on the same machine (Linux): when that process
 *   has ended, which `/proc` tells by its id and start time, or when its
 *   heartbeat is older than {@linkcode STALE_AFTER_MS};
 * - a build of a process that cannot be checked (another machine sharing a
 *   libSQL server, a system without `/proc`): when its heartbeat is older
 *   than {@linkcode STALE_AFTER_MS}.
 * @module
 */

/**
 * How long a build may write nothing before it counts as abandoned; a running
 * build writes a batch every few milliseconds.
 */
export const STALE_AFTER_MS: number = 2 * 60 * 1000;

/** A build as stored: its builder, unknown for a build of an older svc, and its last heartbeat. */
export interface StoredBuild {
  builder?: string;
  /** When it last wrote, in milliseconds since the epoch. */
  heartbeat: number;
}

// The builders of the builds that run in this process now.
const running = new Set<string>();
let thisProcess: Promise<string> | undefined;

/**
 * A new builder id, one per build: this process's identity
 * (`linux:<boot id>:<pid>:<start time>`, or a random one where `/proc` cannot
 * tell) and a random part.
 */
export async function newBuilder(): Promise<string> {
  thisProcess ??= processIdentity(Deno.pid).then((identity) =>
    identity === undefined ? `other:${crypto.randomUUID()}` : `linux:${identity}`
  );
  return `${await thisProcess}/${crypto.randomUUID()}`;
}

/** Marks the build of `builder` as running in this process until disposed. */
export function runBuild(builder: string): Disposable {
  running.add(builder);
  return { [Symbol.dispose]: () => running.delete(builder) };
}

/**
 * Whether a stored build has stopped for good, so that its rows may go.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { abandoned, newBuilder, runBuild } from "./builds.ts";
 * const builder = await newBuilder();
 * {
 *   using _running = runBuild(builder);
 *   assert.equal(await abandoned({ builder, heartbeat: 0 }), false);
 * }
 * assert.equal(await abandoned({ builder, heartbeat: Date.now() }), true);
 * ```
 */
export async function abandoned(build: StoredBuild, now: number = Date.now()): Promise<boolean> {
  const { builder } = build;
  if (builder !== undefined) {
    const own = (await newBuilder()).split("/")[0]!;
    const [process] = builder.split("/");
    if (process === own) return !running.has(builder);
    const [kind, boot, pid] = process!.split(":");
    if (kind === "linux" && own.startsWith(`linux:${boot}:`)) {
      const alive = await processIdentity(Number(pid)) === process!.slice("linux:".length);
      if (!alive) return true;
    }
  }
  return now - build.heartbeat >= STALE_AFTER_MS;
}

/**
 * `<boot id>:<pid>:<start time>` of a running process on Linux, which no other
 * process has had since the machine started; undefined when it does not run,
 * or when `/proc` cannot be read.
 */
async function processIdentity(pid: number): Promise<string | undefined> {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    const boot = (await Deno.readTextFile("/proc/sys/kernel/random/boot_id")).trim();
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    // The command name, in parentheses, may hold spaces; the fields after it
    // start with the third (state); the start time is the 22nd.
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return start === undefined ? undefined : `${boot}:${pid}:${start}`;
  } catch {
    return undefined;
  }
}
