import assert from "node:assert/strict";
import { join } from "node:path";
import { localRoot } from "../../components/core/local_root.ts";
import { denoArgs, run } from "../_process.ts";
import { tmpDir } from "../test_utils.ts";
import { integration } from "../_tier.ts";

Deno.test("localRoot() sets the local root, creates it, and returns it", async () => {
  const previous = localRoot();
  await using dir = await tmpDir();
  const wanted = join(dir.path, "nested", "root");
  try {
    assert.equal(localRoot(wanted), wanted);
    assert.equal(localRoot(), wanted);
    assert.ok((await Deno.stat(wanted)).isDirectory);
  } finally {
    localRoot(previous);
  }
});

integration.test("localRoot() starts from SVC_LOCAL_ROOT", async () => {
  await using dir = await tmpDir();
  const module = import.meta.resolve("../../components/core/local_root.ts");
  const script = `import { localRoot } from "${module}"; console.log(localRoot())`;
  const { stdout } = await run(Deno.execPath(), denoArgs("eval", script), {
    env: { SVC_LOCAL_ROOT: dir.path },
  });
  assert.equal(stdout.trim(), dir.path);
});
