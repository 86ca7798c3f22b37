import assert from "node:assert/strict";
import { join } from "node:path";
import { builtinClassPaths, FAMILIES } from "../../cli/check.ts";
import { type Choice, initCommand, type InitCommandOptions, type Prompts } from "../../cli/init.ts";
import { run } from "../../cli/mod.ts";
import { type ComponentClass, displayNameOf } from "../../components/core/component.ts";
import { OPTIONAL_PACKAGES } from "../../components/packages.ts";
import { SvcError } from "../../components/core/errors.ts";
import { BUILTINS } from "../../components/registry.ts";
import { Config } from "../../server/config.ts";
import { capture } from "./_io.ts";

const DEMO_STORAGE = "svc.source_storages.SvcDemoSourceStorage";
const DEMO_ASSISTANT = "svc.assistants.SvcDemoAssistant";
const DEFAULT_STORAGES = ["svc.source_storages.LibSQL", DEMO_STORAGE];
const DEFAULT_ASSISTANTS = ["svc.assistants.Extractive", DEMO_ASSISTANT];

/** A question as the scripted prompts saw it. */
interface Asked {
  kind: keyof Prompts;
  message: string;
  default?: unknown;
  choices?: Choice<unknown>[];
  /** What the validation said of rejected answers. */
  rejected: string[];
}

/**
 * Prompts that answer from a script: the first unused answer whose pattern
 * matches the question, else the default (for a checkbox, the checked
 * choices). Like a terminal, an answer that fails validation is refused and the
 * next matching answer is tried.
 */
function scripted(script: [RegExp, unknown][] = []) {
  const asked: Asked[] = [];
  const next = (question: Asked, fallback: unknown, valid: (answer: never) => true | string) => {
    asked.push(question);
    for (;;) {
      const index = script.findIndex(([pattern]) => pattern.test(question.message));
      if (index === -1) return fallback;
      const [[, answer]] = script.splice(index, 1) as [[RegExp, unknown]];
      if (answer instanceof Error) throw answer;
      const verdict = valid(answer as never);
      if (verdict === true) return answer;
      question.rejected.push(verdict);
    }
  };
  const prompts: Prompts = {
    select: (q) =>
      Promise.resolve(next({ kind: "select", ...q, rejected: [] }, q.default, () => true)) as never,
    checkbox: (q) =>
      Promise.resolve(
        next(
          { kind: "checkbox", ...q, rejected: [] },
          q.choices.filter((c) => c.checked).map((c) => c.value),
          (answer: unknown[]) =>
            q.validate?.(answer.map((value) => ({ value: value as never }))) ?? true,
        ),
      ) as never,
    input: (q) =>
      Promise.resolve(
        next(
          { kind: "input", ...q, rejected: [] },
          q.default,
          (answer: string) => q.validate?.(answer) ?? true,
        ) as string,
      ),
    confirm: (q) =>
      Promise.resolve(
        next({ kind: "confirm", ...q, rejected: [] }, q.default, () => true),
      ) as never,
  };
  return { prompts, asked };
}

/** Runs `svc init` made with options, turning an `SvcError` into exit 1 as `run()` does. */
async function init(args: string[], options: InitCommandOptions) {
  const io = capture();
  let code = 0;
  const command = initCommand({ io, exit: (c) => code = c, env: {} }, options).exitOverride();
  try {
    await command.parseAsync(args, { from: "user" });
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    io.err(`error: ${error.message}\n`);
    code = 1;
  }
  return { code, ...io };
}

Deno.test("svc init --yes writes the embedded defaults, LibSQL and Extractive first", async () => {
  await using dir = await tmpDir();
  const path = join(dir.path, "svc.toml");
  const io = capture();
  assert.equal(await run(["init", "--yes", "-o", path], io, { env: {} }), 0);
  const config = await Config.fromFile(path, { env: {} });
  assert.deepEqual(config.sourceStorages, DEFAULT_STORAGES);
  assert.deepEqual(config.assistants, DEFAULT_ASSISTANTS);
  assert.equal(config.api.port, 31476);
  assert.match(io.stdout, /Wrote .*svc\.toml/);
  assert.match(io.stdout, /svc check -c .*svc\.toml/);
  assert.match(io.stdout, /svc api -c .*svc\.toml/);
});

Deno.test("svc init's closing hint is deno task svc from a checkout, svc from the binary", async () => {
  await using dir = await tmpDir();
  const hint = (svc: string) =>
    `Next: "${svc} check -c svc.toml" to see what the components need, ` +
    `then "${svc} api -c svc.toml" to start the REST API\n`;
  // deno test runs from the sources, as deno task svc does.
  const checkout = await init(["--yes"], { cwd: dir.path });
  assert.equal(checkout.stdout, `Wrote svc.toml\n${hint("deno task svc")}`);
  const binary = await init(["--yes", "--force"], { cwd: dir.path, svc: "svc" });
  assert.equal(binary.stdout, `Wrote svc.toml\n${hint("svc")}`);
});

Deno.test("svc init --yes refuses an existing file without --force and overwrites with it", async () => {
  await using dir = await tmpDir();
  const path = join(dir.path, "svc.toml");
  await Deno.writeTextFile(path, "# mine\n");
  const refused = capture();
  assert.equal(await run(["init", "--yes", "-o", path], refused, { env: {} }), 1);
  assert.ok(refused.stderr.includes(JSON.stringify(path)), refused.stderr);
  assert.match(refused.stderr, /--force/);
  assert.equal(await Deno.readTextFile(path), "# mine\n");

  const forced = capture();
  assert.equal(await run(["init", "--yes", "--force", "-o", path], forced, { env: {} }), 0);
  assert.deepEqual((await Config.fromFile(path, { env: {} })).assistants, DEFAULT_ASSISTANTS);
});

Deno.test("svc init without --yes and without a terminal asks for --yes", async () => {
  await using dir = await tmpDir();
  const result = await init([], { interactive: false, cwd: dir.path });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /pass --yes/);
  assert.equal(await exists(join(dir.path, "svc.toml")), false);
});

Deno.test("svc init writes ./svc.toml of the working folder by default", async () => {
  await using dir = await tmpDir();
  const { prompts } = scripted();
  const result = await init([], { prompts, cwd: dir.path });
  assert.equal(result.code, 0, result.stderr);
  const config = await Config.fromFile(join(dir.path, "svc.toml"), { env: {} });
  assert.deepEqual(config.assistants, DEFAULT_ASSISTANTS);
  assert.match(result.stdout, /Wrote svc\.toml\n/);
});

Deno.test("svc init, first choice: the embedded defaults", async () => {
  await using dir = await tmpDir();
  const { prompts, asked } = scripted([[/set up/, "defaults"]]);
  const result = await init(["-o", "defaults.toml"], { prompts, cwd: dir.path });
  assert.equal(result.code, 0, result.stderr);
  const config = await Config.fromFile(join(dir.path, "defaults.toml"), { env: {} });
  assert.deepEqual(config.sourceStorages, DEFAULT_STORAGES);
  assert.deepEqual(config.assistants, DEFAULT_ASSISTANTS);
  assert.deepEqual(asked.map((q) => q.kind), ["select"]);
  assert.equal(asked[0]!.default, "defaults");
});

Deno.test("svc init, second choice: lists every built-in, checks the available ones, names unmet requirements", async () => {
  await using dir = await tmpDir();
  // Takes every built-in, so that the unavailable ones, whichever they are here, get listed.
  const everything = (family: number) => builtinClassPaths(FAMILIES[family]!);
  const { prompts, asked } = scripted([
    [/set up/, "builtin"],
    [/source storages/, everything(0)],
    [/assistants/, everything(1)],
  ]);
  const result = await init(["-o", "svc.toml"], { prompts, cwd: dir.path });
  assert.equal(result.code, 0, result.stderr);
  const config = await Config.fromFile(join(dir.path, "svc.toml"), { env: {} });
  assert.deepEqual(config.sourceStorages, everything(0));
  assert.deepEqual(config.assistants, everything(1));

  const checkboxes = asked.filter((q) => q.kind === "checkbox");
  assert.equal(checkboxes.length, FAMILIES.length);
  for (const [index, question] of checkboxes.entries()) {
    const choices = question.choices!;
    assert.deepEqual(choices.map((c) => c.value).sort(), everything(index).sort());
    const unavailable: string[] = [];
    for (const choice of choices) {
      const component = BUILTINS[choice.value as string] as ComponentClass;
      // Optional packages are not loaded to ask: the first load would download them.
      const optional = component.requirements.some((requirement) =>
        requirement.kind === "package" && Object.hasOwn(OPTIONAL_PACKAGES, requirement.name)
      );
      const available = await component.isAvailable();
      assert.equal(choice.checked, !optional && available, String(choice.value));
      if (optional) assert.match(choice.name, /\((loads npm packages|needs setup)\)$/);
      // Chosen, it is checked whole, its packages loaded, and named if it cannot run.
      if (!available) unavailable.push(displayNameOf(component));
    }
    assert.ok(choices.some((c) => c.checked && String(c.value).includes("SvcDemo")));
    for (const name of unavailable) assert.ok(result.stdout.includes(`  ${name}\n`), name);
    if (unavailable.length > 0) assert.match(result.stdout, /need more before they can run/);
  }
});

Deno.test("svc init, second choice: an empty choice is refused", async () => {
  await using dir = await tmpDir();
  const { prompts, asked } = scripted([
    [/set up/, "builtin"],
    [/source storages/, []],
    [/source storages/, [DEMO_STORAGE]],
  ]);
  const result = await init(["-o", "svc.toml"], { prompts, cwd: dir.path });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(asked.find((q) => q.kind === "checkbox")!.rejected, [
    "Choose at least one source storage",
  ]);
});

Deno.test("svc init, third choice: sets the local root, hosts, ports, database and URLs as answered", async () => {
  await using dir = await tmpDir();
  const data = join(dir.path, "data");
  const { prompts, asked } = scripted([
    [/set up/, "common"],
    [/keep its files/, data],
    [/host should the REST API/, "0.0.0.0"],
    [/port should the REST API/, "70000"],
    [/port should the REST API/, "8000"],
    [/host should the web UI/, "127.0.0.1"],
    [/port should the web UI/, "8001"],
    [/URL does the web UI reach the REST API/, "https://api.example.com/svc"],
    [/URL do users open the web UI/, "https://chat.example.com"],
  ]);
  const result = await init(["-o", "svc.toml"], { prompts, cwd: dir.path });
  assert.equal(result.code, 0, result.stderr);
  const config = await Config.fromFile(join(dir.path, "svc.toml"), { env: {} });
  assert.equal(config.localRoot, data);
  assert.deepEqual(config.sourceStorages.includes(DEMO_STORAGE), true);
  assert.deepEqual(config.assistants.includes(DEMO_ASSISTANT), true);
  assert.equal(config.api.hostname, "0.0.0.0");
  assert.equal(config.api.port, 8000);
  assert.equal(config.ui.hostname, "127.0.0.1");
  assert.equal(config.ui.port, 8001);
  assert.equal(config.api.databaseUrl, `sqlite:///${join(data, "svc.db")}`);
  assert.equal(config.api.url, "https://api.example.com/svc");
  assert.deepEqual(config.api.origins, ["https://chat.example.com"]);
  assert.deepEqual(config.ui.origins, ["https://chat.example.com"]);

  const question = (pattern: RegExp) => asked.find((q) => pattern.test(q.message))!;
  assert.match(question(/port should the REST API/).rejected[0]!, /from 1 to 65535/);
  // The defaults follow the earlier answers, with a host a browser can open.
  assert.equal(question(/database/).default, `sqlite:///${join(data, "svc.db")}`);
  assert.equal(question(/reach the REST API/).default, "http://localhost:8000");
  assert.equal(question(/open the web UI/).default, "http://127.0.0.1:8001");
});

Deno.test("svc init asks for another path when the file exists, until it names a new one", async () => {
  await using dir = await tmpDir();
  const taken = join(dir.path, "svc.toml");
  await Deno.writeTextFile(taken, "# mine\n");
  const { prompts, asked } = scripted([
    [/exists already/, false],
    [/instead/, "svc.toml"],
    [/instead/, "other.toml"],
  ]);
  const result = await init([], { prompts, cwd: dir.path });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(await Deno.readTextFile(taken), "# mine\n");
  assert.deepEqual(
    (await Config.fromFile(join(dir.path, "other.toml"), { env: {} })).assistants,
    DEFAULT_ASSISTANTS,
  );
  const instead = asked.find((q) => /instead/.test(q.message))!;
  assert.equal(instead.default, "svc-2.toml");
  assert.deepEqual(instead.rejected, ["svc.toml exists already"]);
});

Deno.test("svc init overwrites an existing file when the answer says so", async () => {
  await using dir = await tmpDir();
  const path = join(dir.path, "svc.toml");
  await Deno.writeTextFile(path, "# mine\n");
  const { prompts } = scripted([[/exists already/, true]]);
  const result = await init([], { prompts, cwd: dir.path });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual((await Config.fromFile(path, { env: {} })).assistants, DEFAULT_ASSISTANTS);
});

Deno.test("svc init stopped with Ctrl+C writes nothing", async () => {
  await using dir = await tmpDir();
  const stop = Object.assign(new Error("User force closed the prompt"), {
    name: "ExitPromptError",
  });
  const { prompts } = scripted([[/set up/, stop]]);
  const result = await init([], { prompts, cwd: dir.path });
  assert.equal(result.code, 130);
  assert.match(result.stderr, /nothing was written/);
  assert.equal(await exists(join(dir.path, "svc.toml")), false);
});

async function tmpDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "svc_init_test_" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
