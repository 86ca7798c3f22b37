import assert from "node:assert/strict";
import { join } from "node:path";
import { localRoot } from "../../components/core/local_root.ts";
import { tmpDir } from "../test_utils.ts";

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

Deno.test("localRoot() starts from SVC_LOCAL_ROOT", async () => {
  await using dir = await tmpDir();
  const command = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { localRoot } from "${
        import.meta.resolve("../../components/core/local_root.ts")
      }"; console.log(localRoot())`,
    ],
    env: { SVC_LOCAL_ROOT: dir.path },
  });
  const { stdout } = await command.output();
  assert.equal(new TextDecoder().decode(stdout).trim(), dir.path);
});
