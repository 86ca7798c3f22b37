import assert from "node:assert/strict";
import {
  abandoned,
  newBuilder,
  runBuild,
  STALE_AFTER_MS,
} from "../../components/indexing/builds.ts";
import { spawn } from "../_process.ts";
import { integration } from "../_tier.ts";

/** The builder id another process on this machine would have, as `newBuilder()` makes it. */
async function builderOf(pid: number): Promise<string> {
  const boot = (await Deno.readTextFile("/proc/sys/kernel/random/boot_id")).trim();
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  return `linux:${boot}:${pid}:${start}/${crypto.randomUUID()}`;
}

Deno.test("abandoned() keeps a build of this process while it runs, and not a moment longer", async () => {
  const builder = await newBuilder();
  const now = Date.now();
  {
    using _running = runBuild(builder);
    assert.equal(await abandoned({ builder, heartbeat: now - 10 * STALE_AFTER_MS }), false);
    // Another build of this process is not running.
    assert.equal(await abandoned({ builder: await newBuilder(), heartbeat: now }), true);
  }
  assert.equal(await abandoned({ builder, heartbeat: now }), true);
});

integration.test("abandoned() gives up on a build of a process that ended at once, and on a running one only when it stops writing", async () => {
  await using child = spawn("sleep", ["60"]);
  const builder = await builderOf(child.process.pid);
  const now = Date.now();
  assert.equal(await abandoned({ builder, heartbeat: now }), false);
  assert.equal(await abandoned({ builder, heartbeat: now - STALE_AFTER_MS }), true);
  await child.stop("SIGKILL");
  assert.equal(await abandoned({ builder, heartbeat: now }), true);
});

Deno.test("abandoned() judges a build it cannot check, or of an older svc, by its heartbeat alone", async () => {
  const now = Date.now();
  const elsewhere = `linux:another-machine:1:1/${crypto.randomUUID()}`;
  assert.equal(await abandoned({ builder: elsewhere, heartbeat: now - 1000 }), false);
  assert.equal(
    await abandoned({ builder: elsewhere, heartbeat: now - STALE_AFTER_MS }),
    true,
  );
  assert.equal(await abandoned({ heartbeat: now - 1000 }), false);
  assert.equal(await abandoned({ heartbeat: now - STALE_AFTER_MS }), true);
});
