/**
 * The test tiers (`_tier.ts`): a test file run as `deno task test:unit` runs
 * it leaves out its integration and slow tests, and fails an unmarked test
 * that starts a child process or PostgreSQL; run as `deno task test` runs it,
 * every test runs.
 * @module
 */
import assert from "node:assert/strict";
import { REPOSITORY, run } from "./_process.ts";
import { integration, TIER_VARIABLE } from "./_tier.ts";
import { tmpDir } from "./test_utils.ts";

/** A deno.json task as its environment and the arguments of `deno test` before the paths. */
function testTask(name: string): { env: Record<string, string>; args: string[] } {
  const { tasks } = JSON.parse(Deno.readTextFileSync(`${REPOSITORY}deno.json`));
  const words = String(tasks[name]).split(" ");
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0]!)) {
    const [key, value] = words.shift()!.split("=");
    env[key!] = value!;
  }
  assert.deepEqual(words.slice(0, 2), ["deno", "test"], `deno.json's ${name} task runs deno test`);
  return { env, args: ["test", ...words.slice(2).filter((word) => word.startsWith("-"))] };
}

/** A test file of every kind of test, each printing its name when it runs. */
function testFile(): string {
  const module = (name: string) => JSON.stringify(import.meta.resolve(name));
  return `
import { spawn } from ${module("./_process.ts")};
import { postgresTest, startPostgres } from ${module("./_postgres.ts")};
import { startSvc } from ${module("./rely/_server.ts")};
import { integration, slow } from ${module("./_tier.ts")};

Deno.test("unit", () => console.log("RAN unit"));
slow.test("slow", () => console.log("RAN slow"));
integration.test("integration", async () => {
  console.log("RAN integration");
  await spawn("true", []).ended;
});
postgresTest("postgres", async () => console.log("RAN postgres"));
Deno.test("unmarked spawn", async () => {
  console.log("RAN unmarked spawn");
  await spawn("true", []).ended;
});
Deno.test("unmarked postgres", async () => {
  console.log("RAN unmarked postgres");
  await startPostgres();
});
Deno.test("unmarked svc api", async () => {
  console.log("RAN unmarked svc api");
  await startSvc(Deno.makeTempDirSync());
});
Deno.test("unmarked command", async () => {
  console.log("RAN unmarked command");
  await new Deno.Command("true", { args: ["--version"] }).output();
});
Deno.test("unmarked node child", async () => {
  console.log("RAN unmarked node child");
  const { default: childProcess } = await import("node:child_process");
  childProcess.execFileSync("true");
});
`;
}

/** What each test of {@linkcode testFile} did, by its name, when run as the task runs tests. */
async function runAs(task: string, filter: string): Promise<{ ran: string[]; output: string }> {
  await using dir = await tmpDir();
  const file = `${dir.path}/tiers_test.ts`;
  await Deno.writeTextFile(file, testFile());
  const { env, args } = testTask(task);
  const ended = await run(Deno.execPath(), [...args, `--filter=${filter}`, file], {
    env: { NO_COLOR: "1", [TIER_VARIABLE]: "", ...env },
  });
  const output = ended.stdout + ended.stderr;
  const ran = [...output.matchAll(/^RAN (.+)$/gm)].map((match) => match[1]!);
  return { ran, output };
}

integration.test("deno task test:unit leaves out integration and slow tests, and fails unmarked ones that start children", async () => {
  const { ran, output } = await runAs("test:unit", "/./");
  assert.deepEqual(ran.toSorted(), [
    "unit",
    "unmarked command",
    "unmarked node child",
    "unmarked postgres",
    "unmarked spawn",
    "unmarked svc api",
  ]);
  assert.match(output, /integration \.\.\. ignored/);
  assert.match(output, /postgres \.\.\. ignored/);
  assert.match(output, /slow \.\.\. ignored/);
  assert.match(output, /\| 1 passed \| 5 failed \| 3 ignored/);
  const refused = (what: string) =>
    new RegExp(
      `Cannot start ${what} in the unit tier: make its test integration\\.test\\(\\)`,
    );
  assert.match(output, refused('the child process "true"'));
  assert.match(output, refused("PostgreSQL"));
  assert.match(output, refused("svc api as a process"));
  assert.match(output, refused('the child process "true --version"'));
  assert.match(
    output,
    refused(`the child process of node:child_process's execFileSync\\("true"\\)`),
  );
});

integration.test("deno task test runs the tests the unit tier leaves out", async () => {
  const { ran, output } = await runAs(
    "test",
    "/^(unit|slow|integration|unmarked (spawn|command|node child))$/",
  );
  assert.deepEqual(ran.toSorted(), [
    "integration",
    "slow",
    "unit",
    "unmarked command",
    "unmarked node child",
    "unmarked spawn",
  ]);
  assert.match(output, /\| 6 passed \| 0 failed/);
});

Deno.test("no test starts a process but through tests/_process.ts", async () => {
  const own = ["tests/_process.ts", "tests/_unit_tier.ts", "tests/tier_test.ts"];
  const starts = /new Deno\.Command\(|["']node:child_process["']|Deno\.run\(/;
  const found: string[] = [];
  for await (const path of modules(`${REPOSITORY}tests/`)) {
    const file = path.slice(REPOSITORY.length);
    if (own.includes(file)) continue;
    const text = await Deno.readTextFile(path);
    if (starts.test(text)) found.push(file);
  }
  assert.deepEqual(found, []);
});

/** The TypeScript modules under `folder`, fixtures left out. */
async function* modules(folder: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(folder)) {
    const path = `${folder}${entry.name}`;
    if (entry.isDirectory && entry.name !== "fixtures") yield* modules(`${path}/`);
    else if (entry.isFile && /\.tsx?$/.test(entry.name)) yield path;
  }
}
