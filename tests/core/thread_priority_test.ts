import assert from "node:assert/strict";
import { getPriority } from "node:os";
import { join } from "node:path";
import { spawn } from "../_process.ts";
import { integration } from "../_tier.ts";
import { tmpDir } from "../test_utils.ts";

const linux = Deno.build.os === "linux";
const MODULE = new URL("../../components/core/thread_priority.ts", import.meta.url).href;

/**
 * Starts a worker that sets its nice value to `start` (unless null), lowers it, and answers it
 * with its thread's id; its nice is read from `/proc` too, by that id, while it still runs.
 */
async function lowered(start: number | null): Promise<{ nice: number; read: number }> {
  const code = `
    import { getPriority, setPriority } from "node:os";
    import { lowerThreadPriority } from ${JSON.stringify(MODULE)};
    ${start === null ? "" : `setPriority(${start});`}
    lowerThreadPriority();
    const thread = Deno.readLinkSync("/proc/thread-self").split("/").at(-1);
    postMessage({ nice: getPriority(), thread });
    await new Promise((resolve) => self.onmessage = resolve);
  `;
  const worker = new Worker(`data:text/javascript,${encodeURIComponent(code)}`, { type: "module" });
  try {
    const { nice, thread } = await new Promise<{ nice: number; thread: string }>((resolve) =>
      worker.onmessage = (e) => resolve(e.data)
    );
    return { nice, read: threadNice(thread) };
  } finally {
    worker.terminate();
  }
}

/** The nice value of one thread of this process, from `/proc`. */
function threadNice(thread: string): number {
  const stat = Deno.readTextFileSync(`/proc/self/task/${thread}/stat`);
  // The fields after the command's closing parenthesis, from the third: nice is the 19th.
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

Deno.test({
  name: "lowerThreadPriority() lowers the calling thread's nice value by 10, and no other's",
  ignore: !linux,
  async fn() {
    // Read by thread, not over all of them: tests run beside this one start threads of their own.
    const own = getPriority();
    const { nice, read } = await lowered(null);
    assert.equal(nice, own + 10);
    assert.equal(read, own + 10);
    assert.equal(getPriority(), own);
  },
});

Deno.test({
  name: "lowerThreadPriority() stops at the lowest priority, and leaves a thread there",
  ignore: !linux,
  async fn() {
    assert.equal((await lowered(15)).nice, 19);
    assert.equal((await lowered(19)).nice, 19);
  },
});

integration.test({
  name: "lowerThreadPriority() changes nothing, and asks nothing, without the sys permission",
  ignore: !linux,
  async fn() {
    await using dir = await tmpDir();
    const script = join(dir.path, "lower.ts");
    // Lowers its main thread, says so, and waits until its input ends; its nice is read from here.
    await Deno.writeTextFile(
      script,
      `import { lowerThreadPriority } from ${JSON.stringify(MODULE)};\n` +
        "lowerThreadPriority();\n" +
        'console.log("lowered");\n' +
        "for await (const _ of Deno.stdin.readable);\n",
    );
    const nice = async (...flags: string[]) => {
      const said = Promise.withResolvers<void>();
      await using child = spawn(Deno.execPath(), ["run", "--no-config", ...flags, script], {
        stdin: "piped",
        onStdout: (text) => text.includes("lowered") && said.resolve(),
      });
      void child.ended.then(() => said.resolve(), said.reject);
      await said.promise;
      const stat = await Deno.readTextFile(`/proc/${child.process.pid}/stat`);
      await child.process.stdin.close();
      const { code, stdout, stderr } = await child.ended;
      assert.equal(stdout.trim(), "lowered", stderr);
      assert.equal(code, 0);
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
    };
    const own = getPriority();
    assert.equal(await nice(), own);
    assert.equal(await nice("--allow-sys=setPriority"), own);
    assert.equal(await nice("--allow-sys=getPriority,setPriority"), own + 10);
  },
});
