import assert from "node:assert/strict";
import { run } from "../../cli/mod.ts";
import { VERSION } from "../../components/version.ts";
import { capture } from "./_io.ts";

Deno.test("svc --version prints the version", async () => {
  const io = capture();
  assert.equal(await run(["--version"], io), 0);
  assert.equal(io.stdout, `svc ${VERSION}\n`);
});

Deno.test("svc --help lists the usage", async () => {
  const io = capture();
  assert.equal(await run(["--help"], io), 0);
  assert.match(io.stdout, /^Usage: svc \[options\]/);
});

Deno.test("svc config and svc worker say what replaced them and exit 1", async () => {
  for (const [command, replacement] of [["config", /svc init/], ["worker", /svc api/]] as const) {
    const io = capture();
    assert.equal(await run([command], io), 1);
    assert.match(io.stderr, replacement);
  }
});

Deno.test("main.ts exits with the code of the command", async () => {
  const main = new URL("../../main.ts", import.meta.url);
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main.pathname, "--version"],
  }).output();
  assert.equal(code, 0);
  assert.equal(new TextDecoder().decode(stdout), `svc ${VERSION}\n`);
  const removed = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main.pathname, "worker"],
  }).output();
  assert.equal(removed.code, 1);
});
