/**
 * The properties of the container image, read from the Containerfile (there
 * is no container engine to build it here).
 * @module
 */
import assert from "node:assert/strict";
import { SERVER_CLASS_PATHS } from "../../server/auth/registry.ts";
import { exposedDemo } from "../../server/auth/exposure.ts";
import { Config } from "../../server/config.ts";
import { programGraph, ROOT } from "./_graph.ts";
import { integration } from "../_tier.ts";

interface Instruction {
  keyword: string;
  args: string;
}

/** The instructions of a Containerfile, by stage: lines joined at `\`, comments left out. */
function parseContainerfile(text: string): Instruction[][] {
  const stages: Instruction[][] = [];
  const logical = text.replace(/\\\n/g, " ").split("\n").map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  for (const line of logical) {
    const [, keyword, args] = /^(\w+)\s+(.*)$/.exec(line)!;
    const instruction = { keyword: keyword!.toUpperCase(), args: args!.replace(/\s+/g, " ") };
    if (instruction.keyword === "FROM") stages.push([]);
    assert.ok(stages.length > 0, `${line} comes before the first FROM`);
    stages.at(-1)!.push(instruction);
  }
  return stages;
}

/** The one instruction of a kind in a stage, or fails. */
function one(stage: Instruction[], keyword: string): string {
  const found = stage.filter((instruction) => instruction.keyword === keyword);
  assert.equal(found.length, 1, `one ${keyword} in the stage`);
  return found[0]!.args;
}

/** The JSON (exec) form of CMD, ENTRYPOINT, VOLUME or HEALTHCHECK's CMD. */
function execForm(args: string): string[] {
  const value = JSON.parse(args);
  assert.ok(Array.isArray(value), `${args} is in the exec form`);
  return value;
}

const stages = parseContainerfile(await Deno.readTextFile(`${ROOT}Containerfile`));
const [build, runtime] = [stages[0]!, stages.at(-1)!];

/** The `NAME=value` pairs of the runtime stage's ENV instructions. */
function env(): string[] {
  return runtime.filter((i) => i.keyword === "ENV").flatMap((i) => i.args.split(" "));
}

/** Where the image copies the configuration to, and the configuration it copies. */
async function imageConfig(): Promise<{ path: string; config: Config }> {
  const copy = runtime.find((i) => i.keyword === "COPY" && i.args.includes("svc.container.toml"));
  assert.ok(copy, "the image copies deploy/svc.container.toml");
  const [source, path] = copy.args.split(" ");
  assert.equal(source, "deploy/svc.container.toml");
  assert.ok(env().includes(`SVC_CONFIG=${path}`), "svc finds it through SVC_CONFIG");
  return { path: path!, config: await Config.fromFile(`${ROOT}${source}`, { env: {} }) };
}

Deno.test("the Containerfile builds the binary with Deno from npm in a stage of its own", async () => {
  assert.equal(stages.length, 2, "a build stage and a runtime stage");
  assert.match(build[0]!.args, / AS build$/i);
  const ci = await Deno.readTextFile(`${ROOT}.ci/run`);
  const denoVersion = /^DENO_VERSION=(\S+)$/m.exec(ci)![1]!;
  assert.equal(Deno.version.deno, denoVersion, "the tests run the Deno that CI and the image use");
  const runs = build.filter((i) => i.keyword === "RUN").map((i) => i.args);
  assert.ok(runs.includes(`npm install -g deno@${denoVersion}`), "Deno from npm, CI's version");
  assert.ok(runs.includes("deno task compile"), "the release's own compile task");
  const fromBuild = runtime.filter((i) => i.keyword === "COPY" && i.args.startsWith("--from="));
  assert.deepEqual(
    fromBuild.map((i) => i.args),
    ["--from=build /src/dist/svc /usr/local/bin/svc"],
    "only the binary comes from the build stage, where the compile task writes it",
  );
  const compile = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).tasks.compile;
  assert.equal(
    compile,
    "deno run -A --lock=deno.dev.lock --frozen deploy/compile.ts",
    "which writes dist/svc on Linux",
  );
});

Deno.test("the image runs svc ui as a non-root user, both ports exposed, the local root a volume", async () => {
  assert.match(runtime[0]!.args, /^docker\.io\/library\/debian:\w+-slim$/, "a small runtime base");
  assert.deepEqual(execForm(one(runtime, "ENTRYPOINT")), ["svc"], "svc, on PATH");
  assert.deepEqual(execForm(one(runtime, "CMD")), ["ui", "--no-open-browser"]);

  const user = one(runtime, "USER");
  assert.ok(!["root", "0"].includes(user.split(":")[0]!), "not root");
  const created = runtime.some((i) =>
    i.keyword === "RUN" && i.args.includes(`useradd`) &&
    new RegExp(`\\s${user}$`).test(i.args)
  );
  assert.ok(created, `the user ${user} is created in the image`);
  const userIndex = runtime.findIndex((i) => i.keyword === "USER");
  const last = runtime.findLastIndex((i) => ["RUN", "COPY", "ADD"].includes(i.keyword));
  assert.ok(userIndex > last, "USER comes after everything that needs root");

  const { config } = await imageConfig();
  assert.deepEqual(
    one(runtime, "EXPOSE").split(" ").map(Number).sort(),
    [config.api.port, config.ui.port].sort(),
  );
  assert.deepEqual([config.api.port, config.ui.port], [31476, 31477]);
  const volume = one(runtime, "VOLUME");
  assert.equal(volume.startsWith("[") ? execForm(volume)[0] : volume, config.localRoot);
  assert.equal(one(runtime, "WORKDIR"), config.localRoot, "svc init would write to the volume");
});

Deno.test("a stopped container finishes its requests within the engines' 10 s before SIGKILL", () => {
  const timeout = env().find((pair) => pair.startsWith("SVC_SHUTDOWN_TIMEOUT="));
  assert.ok(timeout, "SVC_SHUTDOWN_TIMEOUT is set");
  // serve.ts gives cut-off streams 2 s more to end before it closes the database.
  assert.ok(Number(timeout.split("=")[1]) + 2 < 10, timeout);
});

Deno.test("the image's health check asks /health with busybox wget, which the image installs", async () => {
  const healthcheck = one(runtime, "HEALTHCHECK");
  const [, options, command] = /^(.*?)\s*CMD (\[.*\])$/.exec(healthcheck)!;
  assert.match(options!, /--interval=\d+s/);
  assert.match(options!, /--start-period=\d+s/);
  const { config } = await imageConfig();
  assert.deepEqual(execForm(command!), [
    "busybox",
    "wget",
    "-q",
    "-O",
    "/dev/null",
    `http://127.0.0.1:${config.api.port}/health`,
  ]);
  const installs = runtime.some((i) =>
    i.keyword === "RUN" && /apt-get install [^&]*\bbusybox\b/.test(i.args)
  );
  assert.ok(installs, "busybox is installed in the runtime stage");
});

Deno.test("the image's configuration binds both servers to 0.0.0.0 and is reached as localhost", async () => {
  const { config } = await imageConfig();
  assert.equal(config.api.hostname, "0.0.0.0");
  assert.equal(config.ui.hostname, "0.0.0.0");
  assert.equal(config.api.url, `http://localhost:${config.api.port}`);
  assert.deepEqual(config.api.origins, [`http://localhost:${config.ui.port}`]);
  assert.deepEqual(config.ui.origins, [`http://localhost:${config.ui.port}`]);
  assert.equal(config.api.databaseUrl, `sqlite:///${config.localRoot}/svc.db`);
  // The embedded defaults: an image answers from the users' documents with no key or server.
  assert.deepEqual(config.sourceStorages, [
    "svc.source_storages.LibSQL",
    "svc.source_storages.SvcDemoSourceStorage",
  ]);
  assert.deepEqual(config.assistants, [
    "svc.assistants.Extractive",
    "svc.assistants.SvcDemoAssistant",
  ]);
});

Deno.test("the image's configuration signs in with password accounts, which svc serves on 0.0.0.0", async () => {
  const { config } = await imageConfig();
  assert.equal(config.authentication, "svc.deploy.PasswordAuthentication");
  assert.equal(config.api.allowInsecureDemoSignIn, false);
  assert.equal(
    exposedDemo(config, await SERVER_CLASS_PATHS.load(config.authentication)),
    undefined,
  );
  const demo = Config.from({ api: { hostname: config.api.hostname } }, { env: {} });
  assert.ok(
    exposedDemo(demo, await SERVER_CLASS_PATHS.load(demo.authentication)),
    "the demo would be refused there",
  );
});

integration.test("the build context leaves out what the build does not need, and keeps what it does", async () => {
  const containerignore = await Deno.readTextFile(`${ROOT}.containerignore`);
  assert.equal(
    await Deno.readTextFile(`${ROOT}.dockerignore`),
    containerignore,
    ".dockerignore is .containerignore for docker",
  );
  const patterns = containerignore.split("\n").map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  for (const pattern of patterns) {
    assert.match(pattern, /^[\w.-]+$/, `${pattern}: a plain name, matched as a top-level path`);
  }
  for (const needed of [".git", "node_modules", "dist", ".svc"]) {
    assert.ok(patterns.includes(needed), `${needed} is left out`);
  }
  const { files } = await programGraph();
  const copied = (path: string) => !patterns.includes(path.split("/")[0]!);
  const needed = [...files, "deno.json", "deno.lock", "deploy/compile.ts"];
  for (const path of needed) assert.ok(copied(path), `${path} is in the build context`);
  const copies = runtime.filter((i) => i.keyword === "COPY" && !i.args.startsWith("--from="));
  for (const copy of copies) assert.ok(copied(copy.args.split(" ")[0]!), copy.args);
});
