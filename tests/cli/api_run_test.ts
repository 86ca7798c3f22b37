import assert from "node:assert/strict";
import { apiCommand } from "../../cli/api.ts";
import { apiArgs } from "../../cli/api_run.ts";
import { run } from "../../cli/mod.ts";
import { tmpDir } from "../test_utils.ts";
import { capture } from "./_io.ts";

Deno.test("apiArgs() reads the usual svc api lines, as commander would", () => {
  assert.deepEqual(apiArgs(["api"]), {});
  assert.deepEqual(apiArgs(["api", "-c", "a.toml"]), { config: "a.toml" });
  assert.deepEqual(apiArgs(["api", "--config", "a b.toml"]), { config: "a b.toml" });
  assert.deepEqual(apiArgs(["api", "--config=a=b.toml"]), { config: "a=b.toml" });
  assert.deepEqual(
    apiArgs([
      "api",
      "--ignore-unavailable-components",
      "-c",
      "a.toml",
      "--allow-insecure-demo-sign-in",
    ]),
    { config: "a.toml", ignoreUnavailableComponents: true, allowInsecureDemoSignIn: true },
  );
});

Deno.test("apiArgs() reads every option of svc api's commander command, by the same name", () => {
  const command = () => apiCommand({ io: { out() {}, err() {} }, exit() {} });
  const { options } = command();
  assert.ok(options.length >= 3);
  for (const option of options) {
    const value = option.required ? "a.toml" : undefined;
    for (const flag of [option.short, option.long].filter((flag) => flag !== undefined)) {
      const args = ["api", flag!, ...value === undefined ? [] : [value]];
      const commander = command();
      commander.parseOptions(args.slice(1));
      const expected = { [option.attributeName()]: value ?? true };
      assert.deepEqual(commander.opts(), expected);
      assert.deepEqual(apiArgs(args), expected, args.join(" "));
    }
  }
});

Deno.test("apiArgs() leaves every other line to commander: help, mistakes, other commands", () => {
  for (
    const args of [
      [],
      ["ui"],
      ["check", "-c", "a.toml"],
      ["api", "--help"],
      ["api", "-h"],
      ["api", "-c"],
      ["api", "-c", ""],
      ["api", "-c", "--help"],
      ["api", "-c", "a.toml", "-c", "b.toml"],
      ["api", "--port", "8000"],
      ["api", "--start-worker"],
      ["api", "extra"],
      ["api", "constructor"],
      ["api", "--allow-insecure-demo-sign-in", "--allow-insecure-demo-sign-in"],
      ["api", "-ca.toml"],
    ]
  ) {
    assert.equal(apiArgs(args), undefined, args.join(" "));
  }
});

Deno.test("svc api read without commander says what is wrong with its configuration in one line", async () => {
  await using dir = await tmpDir();
  const io = capture();
  const missing = `${dir.path}/missing.toml`;
  assert.equal(await run(["api", "-c", missing], io, { env: {} }), 1);
  assert.equal(io.stdout, "");
  assert.match(io.stderr, /^error: [^\n]*missing\.toml[^\n]*\n$/);
});

Deno.test("svc api with a mistake on its line is still told by commander", async () => {
  const io = capture();
  assert.equal(await run(["api", "--port", "8000"], io, { env: {} }), 1);
  assert.match(io.stderr, /^error: Unknown option "--port" for "svc api"/);
});
