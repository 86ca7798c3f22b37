import assert from "node:assert/strict";
import { run } from "../../cli/mod.ts";
import { VERSION } from "../../components/version.ts";
import { denoArgs, MAIN, run as runProcess } from "../_process.ts";
import { tmpDir, writeFile } from "../test_utils.ts";
import { capture } from "./_io.ts";
import { integration } from "../_tier.ts";

/** Runs svc; a mistake must be one line on stderr, nothing on stdout and exit code 1. */
async function mistake(args: string[], env: Record<string, string> = {}): Promise<string> {
  const io = capture();
  assert.equal(await run(args, io, { env }), 1, io.stderr);
  assert.equal(io.stdout, "");
  assert.doesNotMatch(io.stderr, /^\s+at /m, "a stack trace");
  assert.match(io.stderr, /^error: [^\n]+\n$/, "one line");
  return io.stderr;
}

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

Deno.test("svc names an unknown command, suggests the closest one and lists them all", async () => {
  assert.equal(
    await mistake(["chek"]),
    'error: Unknown command "chek" (did you mean "check"?): ' +
      "the commands are init, check, api, ui, mcp, user, eval, export-labelled and help\n",
  );
  assert.equal(
    await mistake(["serve", "--yes"]),
    'error: Unknown command "serve": the commands are init, check, api, ui, mcp, user, eval, ' +
      "export-labelled and help\n",
  );
  assert.match(await mistake(["help", "chek"]), /^error: Unknown command "chek" \(did you mean/);
});

Deno.test("svc help lists the commands, and svc help <command> shows that command's help", async () => {
  const io = capture();
  assert.equal(await run(["help"], io), 0);
  assert.match(io.stdout, /^Usage: svc \[options\] \[command\]/);
  for (const command of ["init", "check", "api", "ui", "user", "eval", "export-labelled", "help"]) {
    assert.match(io.stdout, new RegExp(`^  ${command} `, "m"));
  }
  const check = capture();
  assert.equal(await run(["help", "check"], check), 0);
  assert.match(check.stdout, /^Usage: svc check \[options\]/);
  assert.match(check.stdout, /--config <path>/);
  assert.equal(check.stderr, "");
});

Deno.test("svc api --prot says where the port is set", async () => {
  assert.equal(
    await mistake(["api", "--prot", "1"]),
    'error: Unknown option "--prot" for "svc api": set the port with env SVC_API_PORT or ' +
      '"port" in the [api] table of svc.toml\n',
  );
  assert.match(
    await mistake(["ui", "--port", "1"]),
    /env SVC_UI_PORT or "port" in the \[ui\] table/,
  );
});

Deno.test("svc names an unknown option with its command, and the option it resembles", async () => {
  assert.equal(
    await mistake(["check", "--confg", "x.toml"]),
    'error: Unknown option "--confg" for "svc check" (did you mean "--config"?): ' +
      'see "svc check --help"\n',
  );
  assert.equal(await mistake(["-x"]), 'error: Unknown option "-x" for "svc": see "svc --help"\n');
});

Deno.test("svc says an option needs a value, and a command takes no arguments", async () => {
  assert.equal(
    await mistake(["api", "-c"]),
    'error: Option "--config" needs a value: "svc api --config <path>"\n',
  );
  assert.equal(
    await mistake(["api", "svc.toml"]),
    'error: Unexpected argument "svc.toml" for "svc api": it takes options only, ' +
      'see "svc api --help"\n',
  );
});

Deno.test("svc api with a missing or invalid svc.toml says so in one line", async () => {
  await using dir = await tmpDir();
  const missing = `${dir.path}/nope.toml`;
  assert.equal(
    await mistake(["api", "-c", missing]),
    `error: Cannot read the configuration "${missing}": the file does not exist\n`,
  );
  const invalid = await writeFile(dir.path, "svc.toml", "[api]\nport = 31476\n[ui\n");
  assert.equal(
    await mistake(["api", "-c", invalid]),
    `error: Cannot read the configuration "${invalid}": invalid TOML at line 3, column 4: ` +
      "illegal character in key\n",
  );
});

Deno.test("svc api with wrong values in svc.toml lists each problem under one sentence", async () => {
  await using dir = await tmpDir();
  const path = await writeFile(dir.path, "svc.toml", '[api]\nprot = 1\n[ui]\nport = "x"\n');
  const io = capture();
  assert.equal(await run(["api", "-c", path], io, { env: {} }), 1);
  assert.equal(
    io.stderr,
    `error: Cannot use the configuration "${path}":\n` +
      '- Unknown key "api.prot" (did you mean "api.port"?)\n' +
      '- "ui.port" must be an integer from 1 to 65535, not "x"\n',
  );
});

Deno.test("svc api and svc ui warn about an unknown SVC_ variable, with the one it resembles", async () => {
  await using dir = await tmpDir();
  for (const command of ["api", "ui"]) {
    const io = capture();
    const env = { SVC_API_PROT: "8000", SVC_API_PORT: "8001" };
    assert.equal(await run([command, "-c", `${dir.path}/nope.toml`], io, { env }), 1);
    const [warning, error] = io.stderr.trimEnd().split("\n");
    assert.equal(JSON.parse(warning!).level, "warn");
    assert.equal(
      JSON.parse(warning!).message,
      'Unknown environment variable "SVC_API_PROT" (did you mean "SVC_API_PORT"?): ' +
        "neither svc nor its built-in components read it",
    );
    assert.match(error!, /^error: Cannot read the configuration/);
  }
});

integration.test("main.ts exits with the code of the command", async () => {
  const { code, stdout } = await runProcess(
    Deno.execPath(),
    denoArgs("run", "-A", MAIN, "--version"),
  );
  assert.equal(code, 0);
  assert.equal(stdout, `svc ${VERSION}\n`);
  const removed = await runProcess(Deno.execPath(), denoArgs("run", "-A", MAIN, "worker"));
  assert.equal(removed.code, 1);
});
