/**
 * The npm packages: deno.lock holds only what the svc program needs to start
 * (Deno installs all of it before anything runs, so a first `deno task ui`
 * downloads exactly that), the optional packages load when a component first
 * needs them, and each package has one version wherever it is named.
 * @module
 */
import assert from "node:assert/strict";
import { OPTIONAL_PACKAGES, type OptionalPackage } from "../components/packages.ts";
import { compileArgs } from "../deploy/compile.ts";
import {
  freePort,
  MAIN,
  REPOSITORY,
  run,
  SECRETS,
  spawn,
  svcTaskArgs,
  waitForUrl,
} from "./_process.ts";
import { info } from "./dist/_graph.ts";
import { svcToml, tmpDir } from "./test_utils.ts";
import { integration } from "./_tier.ts";

interface Lock {
  specifiers: Record<string, string>;
  npm: Record<string, { os?: string[]; cpu?: string[] }>;
  workspace: { dependencies: string[] };
}

const config = JSON.parse(await Deno.readTextFile(`${REPOSITORY}deno.json`));
const imports: Record<string, string> = config.imports;
const lock: Lock = JSON.parse(await Deno.readTextFile(`${REPOSITORY}deno.lock`));

/** `npm:name@version` of an import map target (`npm:/name@version/` for a folder). */
function packageOf(target: string): string | undefined {
  return /^npm:\/?((?:@[^/@]+\/)?[^/@]+@[^/]+)/.exec(target)?.[1];
}

/** The package name of `name@version` or `name@version_peer@1`. */
function nameOf(id: string): string {
  return /^(@[^/@]+\/[^/@]+|[^/@]+)/.exec(id)![1]!;
}

Deno.test("deno.lock names exactly the npm packages of deno.json's imports", () => {
  const wanted = [...new Set(Object.values(imports).map(packageOf).filter(Boolean))]
    .map((id) => `npm:${id}`).sort();
  assert.deepEqual(Object.keys(lock.specifiers).sort(), wanted);
  assert.deepEqual([...lock.workspace.dependencies].sort(), wanted);
});

Deno.test("deno.lock holds no optional or development package, and under 60 for this machine", () => {
  const names = new Set(Object.keys(lock.npm).map(nameOf));
  const optional = Object.keys(OPTIONAL_PACKAGES);
  const development = ["esbuild", "playwright-core", "swagger-ui-dist", "@types/busboy"];
  assert.deepEqual([...names].filter((name) => [...optional, ...development].includes(name)), []);
  const cpu = { x86_64: "x64", aarch64: "arm64" }[Deno.build.arch as string] ?? Deno.build.arch;
  const here = Object.entries(lock.npm).filter(([, entry]) =>
    (entry.os ?? [Deno.build.os]).includes(Deno.build.os) && (entry.cpu ?? [cpu]).includes(cpu)
  );
  assert.ok(here.length < 60, `${here.length} packages: ${here.map(([id]) => id).join(", ")}`);
});

integration.test("svc starts on deno.lock alone: it needs no package the lock does not name", async () => {
  // --frozen fails the run when the program needs anything deno.lock does not hold.
  const output = await run(Deno.execPath(), ["run", "-A", "--frozen", "main.ts", "--version"]);
  assert.equal(output.code, 0, output.stderr);
  assert.match(output.stdout, /^svc \d+\.\d+\.\d+/);
});

integration.test("svc api serves as `deno task svc api` runs it: Deno's npm cache, no node_modules, deno.lock alone", async () => {
  // The tasks run svc with the packages of Deno's cache, as the compiled binary does: a
  // node_modules folder is checked against the lock at every start (some 10 ms on deno.lock).
  const tasks: Record<string, string> = config.tasks;
  assert.equal(tasks.ui, `${tasks.svc} ui`);
  const args = svcTaskArgs();
  assert.ok(args.includes("--node-modules-dir=none"), `the task: ${tasks.svc}`);
  // The binary is the same process: it carries the task's V8 flags.
  const v8Flags = args.filter((arg) => arg.startsWith("--v8-flags="));
  assert.deepEqual(v8Flags, ["--v8-flags=--max-semi-space-size=4"]);
  assert.deepEqual(
    compileArgs(undefined, { output: "svc" }).filter((arg) => arg.startsWith("--v8-flags=")),
    v8Flags,
  );
  // So do the benches that run svc's components in their own process.
  assert.deepEqual(tasks.bench!.split(" ").filter((arg) => arg.startsWith("--v8-flags=")), v8Flags);

  await using dir = await tmpDir();
  const port = freePort();
  const file = `${dir.path}/svc.toml`;
  await Deno.writeTextFile(
    file,
    svcToml({
      sourceStorage: "svc.source_storages.SvcDemoSourceStorage",
      assistant: "svc.assistants.SvcDemoAssistant",
      port,
      localRoot: `${dir.path}/root`,
    }),
  );
  // --frozen: a package that deno.lock does not name fails the start.
  await using svc = spawn(Deno.execPath(), [...args, MAIN, "api", "-c", file], {
    env: SECRETS,
  });
  await waitForUrl(`http://127.0.0.1:${port}/health`, svc);
});

integration.test("`deno task svc` leaves deno.lock as it was when it loads an optional package", async () => {
  await using dir = await tmpDir();
  const config = `${dir.path}/svc.toml`;
  await Deno.writeTextFile(
    config,
    `local_root = "root"\nauthentication = "svc.deploy.PasswordAuthentication"\n`,
  );
  const lock = `${REPOSITORY}deno.lock`;
  const before = await Deno.readTextFile(lock);
  assert.ok(!before.includes("npm:hash-wasm@"), "deno.lock holds hash-wasm already");
  // Adding a user hashes the password with hash-wasm, an optional package.
  const adding = spawn(Deno.execPath(), [
    "task",
    "svc",
    "user",
    "add",
    "ada",
    "--password-stdin",
    "-c",
    config,
  ], { stdin: "piped" });
  const writer = adding.process.stdin.getWriter();
  await writer.write(new TextEncoder().encode("correct horse battery\n"));
  await writer.close();
  const added = await adding.ended;
  assert.equal(added.code, 0, added.stderr);
  assert.equal(await Deno.readTextFile(lock), before);
  // The run's copy of the lock, which git ignores, took the package instead.
  assert.match(await Deno.readTextFile(`${REPOSITORY}.svc/run.lock`), /npm:hash-wasm@/);
});

integration.test("every npm package has one version wherever the code names it", async () => {
  const versions = new Map<string, Map<string, string>>();
  const note = (id: string, where: string) => {
    const name = nameOf(id);
    const seen = versions.get(name) ?? new Map<string, string>();
    if (!seen.has(id)) seen.set(id, where);
    versions.set(name, seen);
  };
  for (const target of [...Object.values(imports), ...Object.values(OPTIONAL_PACKAGES)]) {
    const id = packageOf(target);
    if (id) note(id, "deno.json");
  }
  const sources = await run("git", ["ls-files", "*.ts", "*.tsx"]);
  for (const path of sources.stdout.trim().split("\n")) {
    const text = await Deno.readTextFile(`${REPOSITORY}${path}`);
    for (const match of text.matchAll(/["']npm:\/?((?:@[^/@"']+\/)?[^/@"']+@[^/"']+)/g)) {
      note(match[1]!, path);
    }
  }
  const many = [...versions.values()].filter((seen) => seen.size > 1)
    .map((seen) => [...seen].map(([id, where]) => `${id} in ${where}`).join(", "));
  assert.deepEqual(many, []);
});

/**
 * The npm packages a module loads when it is imported: those its code imports
 * reach, statically or by a dynamic `import()` of a literal, type-only
 * imports left out (they load nothing).
 */
async function packagesLoadedBy(module: string): Promise<string[]> {
  const { modules, redirects } = await info(module);
  const bySpecifier = new Map(modules.map((m) => [m.specifier, m]));
  const root = new URL(module, `file://${REPOSITORY}`).href;
  const seen = new Set<string>([root]);
  const packages = new Set<string>();
  for (const specifier of seen) {
    const found = bySpecifier.get(specifier);
    if (found?.npmPackage) packages.add(nameOf(found.npmPackage));
    for (const { code } of found?.dependencies ?? []) {
      if (code) seen.add(redirects[code.specifier] ?? code.specifier);
    }
  }
  return [...packages].sort();
}

integration.test("importing @svc/svc or any of its exports loads no optional package", async () => {
  const optional: string[] = Object.keys(OPTIONAL_PACKAGES);
  const exports: Record<string, string> = config.exports;
  for (const [name, module] of Object.entries(exports)) {
    const loaded = await packagesLoadedBy(module);
    // The program loads its commands by a name, once it is asked for more than its version.
    if (name !== "./cli") {
      assert.ok(loaded.includes("zod"), `${name} loads its required packages, zod among them`);
    }
    assert.deepEqual(loaded.filter((p) => optional.includes(p)), [], `${name} (${module})`);
  }
});

integration.test("a compiled svc includes every module of an optional package that the code loads by a subpath", async () => {
  const included = compileArgs(undefined, { output: "svc" });
  const sources = await run("git", ["ls-files", "*.ts"]);
  const loaded: string[] = [];
  for (const path of sources.stdout.trim().split("\n")) {
    const text = await Deno.readTextFile(`${REPOSITORY}${path}`);
    for (const match of text.matchAll(/importPackage<[^>]*>\(\s*"([^"]+)",\s*"([^"]+)"/g)) {
      loaded.push(`${OPTIONAL_PACKAGES[match[1] as OptionalPackage]}/${match[2]}`);
    }
  }
  assert.ok(loaded.length > 0, "the MCP server loads the SDK by subpaths");
  assert.deepEqual(loaded.filter((specifier) => !included.includes(specifier)), []);
});
