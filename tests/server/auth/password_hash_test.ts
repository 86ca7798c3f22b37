import assert from "node:assert/strict";
import { getPriority } from "node:os";
import { PasswordPool } from "../../../server/auth/password_hash.ts";
import { workerNices } from "../../source_storages/_threads.ts";

/** How many turns the event loop takes while `work` runs: none when the work holds the thread. */
async function turnsDuring(work: Promise<unknown>): Promise<number> {
  let done = false;
  void work.finally(() => done = true);
  let turns = 0;
  while (!done) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    turns++;
  }
  await work;
  return turns;
}

Deno.test("PasswordPool hashes and checks passwords off the thread that called it", async () => {
  const pool = new PasswordPool({ workers: 1 });
  // The first hash loads the worker and hash-wasm; the next ones are the hashing alone.
  const hash = await pool.hash("correct horse");
  const release = pool.hold();
  try {
    await pool.verify("warm", hash);
    assert.ok(await turnsDuring(pool.verify("correct horse", hash)) >= 3);
    assert.ok(await turnsDuring(pool.hash("another")) >= 3);
  } finally {
    release();
  }
});

Deno.test({
  name: "PasswordPool hashes below the calling thread's priority",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const pool = new PasswordPool({ workers: 2 });
    const release = pool.hold();
    try {
      await Promise.all([pool.hash("one"), pool.hash("two")]);
      // A thread's nice value: the higher, the less of a busy core it gets. Workers of earlier
      // tests may still be ending, so this pool's two are counted among the lowered ones.
      const lowered = workerNices().filter((nice) => nice === getPriority() + 10);
      assert.ok(lowered.length >= 2, `${lowered.length} workers below the caller's priority`);
    } finally {
      release();
    }
  },
});

Deno.test("PasswordPool runs no more checks at once than it has workers, and answers each", async () => {
  const pool = new PasswordPool({ workers: 2 });
  const hash = await pool.hash("correct horse");
  const checks = ["correct horse", "wrong", "correct horse", "x", "y", "correct horse"];
  const results = await Promise.all(checks.map((password) => pool.verify(password, hash)));
  assert.deepEqual(results, [true, false, true, false, false, true]);
  assert.equal(pool.mostAtOnce, 2);
  assert.equal(pool.pending, 0);
  assert.equal(await pool.verify("anything", "not a hash"), false);
});

Deno.test("PasswordPool.checkRoom() refuses a login with 429 once the queue is full", async () => {
  const pool = new PasswordPool({ workers: 1, queue: 2 });
  pool.checkRoom();
  const running = [pool.hash("a"), pool.hash("b"), pool.hash("c")];
  assert.throws(() => pool.checkRoom(), {
    status: 429,
    message: "Too many logins at once: 2 passwords wait to be checked, the most the server " +
      "queues (SVC_API_PASSWORD_QUEUE); try again in a few seconds",
  });
  await Promise.all(running);
  pool.checkRoom();
});
