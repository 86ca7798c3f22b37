import assert from "node:assert/strict";
import { getPriority } from "node:os";
import { join } from "node:path";
import { workerNices } from "../source_storages/_threads.ts";
import { tmpDir } from "../test_utils.ts";

const linux = Deno.build.os === "linux";
const MODULE = new URL("../../components/core/thread_priority.ts", import.meta.url).href;

/** Starts a worker that sets its nice value to `start` (unless null), lowers it, and answers it. */
async function lowered(start: number | null): Promise<{ nice: number; others: number[] }> {
  const code = `
    import { getPriority, setPriority } from "node:os";
    import { lowerThreadPriority } from ${JSON.stringify(MODULE)};
    ${start === null ? "" : `setPriority(${start});`}
    lowerThreadPriority();
    postMessage(getPriority());
    await new Promise((resolve) => self.onmessage = resolve);
  `;
  const worker = new Worker(`data:text/javascript,${encodeURIComponent(code)}`, { type: "module" });
  try {
    const nice = await new Promise<number>((resolve) => worker.onmessage = (e) => resolve(e.data));
    return { nice, others: workerNices() };
  } finally {
    worker.terminate();
  }
}

Deno.test({
  name: "lowerThreadPriority() lowers the calling thread's nice value by 10, and no other's",
  ignore: !linux,
  async fn() {
    const own = getPriority();
    const { nice, others } = await lowered(null);
    assert.equal(nice, own + 10);
    assert.deepEqual(others, [own + 10]);
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

Deno.test({
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
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-config", ...flags, script],
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const stderr = new Response(child.stderr).text();
      const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      const { value } = await lines.read();
      const stat = await Deno.readTextFile(`/proc/${child.pid}/stat`);
      await child.stdin.close();
      while (!(await lines.read()).done);
      const { code } = await child.status;
      assert.equal(value?.trim(), "lowered", await stderr);
      assert.equal(code, 0);
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
    };
    const own = getPriority();
    assert.equal(await nice(), own);
    assert.equal(await nice("--allow-sys=setPriority"), own);
    assert.equal(await nice("--allow-sys=getPriority,setPriority"), own + 10);
  },
});
