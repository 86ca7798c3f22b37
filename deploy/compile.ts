/**
 * Builds the `svc` binary with `deno compile`: `deno task compile` for this
 * machine (`dist/svc`), `deno task compile:all` for the five release targets
 * (`dist/svc-<target>`, `.exe` on Windows).
 *
 *     deno run -A deploy/compile.ts [--all | --target TARGET ...] [--dry-run]
 *
 * What the binary carries:
 * - the module graph of `main.ts`: every local module, `deno.json` (the
 *   version), the UI bundle and Swagger UI as generated modules;
 * - {@linkcode INCLUDES}: the main modules of the Web Workers, which are not
 *   imported but started with `new Worker(new URL(...))`, and
 *   {@linkcode NAMED_IMPORTS};
 * - the optional npm packages (`components/packages.ts`), which svc imports
 *   by a name Deno cannot read ahead of time, so that they load from the
 *   binary rather than from the network;
 * - the npm packages the graph reaches, from Deno's npm cache
 *   (`--node-modules-dir=none --exclude-unused-npm`), with the native addons
 *   of the target platform (libSQL's), which `deno compile` downloads for a
 *   cross-compiled target and the binary extracts when it loads them.
 * @module
 */
import { join, posix } from "node:path";
import { BUILTIN_MODULES } from "../components/class_paths.ts";
import { READERS_MODULE } from "../components/core/document.ts";
import { AUTHENTICATION_MODULES } from "../server/auth/registry.ts";
import { POSTGRES } from "../server/database/connect.ts";
import { COMMANDS as CLI_COMMANDS } from "../cli/mod.ts";
import { SERVER } from "../cli/api_run.ts";
import {
  OPTIONAL_PACKAGES,
  OPTIONAL_SUBPATHS,
  type OptionalPackage,
} from "../components/packages.ts";

/** The entry point. */
export const ENTRY = "main.ts";

/**
 * The commands: `main.ts` imports them by a name Deno does not read ahead of
 * time, so that `svc --version` does not load them.
 */
export const COMMANDS = "cli/mod.ts";

/**
 * The modules svc imports by a name Deno does not read ahead of time: the
 * commands from `main.ts`, so that `svc --version` does not load them;
 * commander's commands and the server from `cli/mod.ts`, so that `svc api`
 * prepares neither the other commands nor the server before its database
 * thread starts; the built-in components from `components/class_paths.ts`, the
 * document readers from `components/core/document.ts` and the view route of
 * `server/api/document_content.ts`, the authentications from
 * `server/auth/registry.ts`
 * and PostgreSQL's database from `server/database/connect.ts`, so that a
 * start prepares none it does not load.
 */
export const NAMED_IMPORTS: readonly string[] = [
  ...new Set([
    COMMANDS,
    // Each named relative to the module that imports it.
    posix.join("cli", CLI_COMMANDS),
    posix.join("cli", SERVER),
    ...Object.values(BUILTIN_MODULES).map((module) => posix.join("components", module)),
    posix.join("components/core", READERS_MODULE),
    ...Object.values(AUTHENTICATION_MODULES).map((module) => posix.join("server/auth", module)),
    posix.join("server/database", POSTGRES),
  ]),
];

/**
 * What `--include` adds to the module graph: {@linkcode NAMED_IMPORTS} and
 * the main module of each Web Worker. `tests/dist/self_contained_test.ts`
 * fails when a worker of the graph is missing here.
 */
export const INCLUDES: readonly string[] = [
  ...NAMED_IMPORTS,
  "server/database/_thread_worker.ts",
  "server/auth/_password_worker.ts",
  "components/indexing/_worker.ts",
  "components/documents/pdf/_worker.ts",
  "components/documents/_reader_worker.ts",
  "components/retrieval/vectors/code_scan_worker.ts",
];

/** The release targets and the name of each one's binary in `dist/`. */
export const TARGETS: Readonly<Record<string, string>> = {
  "x86_64-unknown-linux-gnu": "svc-x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu": "svc-aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin": "svc-x86_64-apple-darwin",
  "aarch64-apple-darwin": "svc-aarch64-apple-darwin",
  "x86_64-pc-windows-msvc": "svc-x86_64-pc-windows-msvc.exe",
};

const ROOT = new URL("..", import.meta.url).pathname;

/** An npm package of the lock, as `deno info --json` lists it. */
export interface NpmPackage {
  name: string;
  version: string;
  registryUrl: string;
}

/**
 * The npm packages built for musl, which a glibc (`-linux-gnu`) target never
 * loads: Deno ignores npm's `libc` field and installs both variants
 * (denoland/deno#35038), so the binary would carry each native addon twice.
 */
export function muslPackages(packages: readonly NpmPackage[]): NpmPackage[] {
  return packages.filter((p) => /-musl(eabihf)?$/.test(p.name));
}

/**
 * The V8 flags that `deno task svc` runs svc with (deno.json), which the
 * binary carries: the same process, however it is started.
 */
export function taskV8Flags(): string[] {
  const { tasks } = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json")));
  return String(tasks.svc).split(" ").filter((arg) => arg.startsWith("--v8-flags="));
}

/** The arguments of `deno compile` for a target (`undefined`: this machine). */
export function compileArgs(
  target: string | undefined,
  options: { output: string; exclude?: readonly string[] },
): string[] {
  return [
    "compile",
    "--allow-all",
    "--node-modules-dir=none",
    ...taskV8Flags(),
    "--exclude-unused-npm",
    ...INCLUDES.flatMap((path) => ["--include", path]),
    ...Object.values(OPTIONAL_PACKAGES).flatMap((specifier) => ["--include", specifier]),
    ...Object.entries(OPTIONAL_SUBPATHS).flatMap(([name, subpaths]) =>
      subpaths!.flatMap((subpath) => [
        "--include",
        `${OPTIONAL_PACKAGES[name as OptionalPackage]}/${subpath}`,
      ])
    ),
    ...(options.exclude ?? []).flatMap((path) => ["--exclude", path]),
    ...(target ? ["--target", target] : []),
    "--output",
    options.output,
    ENTRY,
  ];
}

/** Deno's npm cache folder and the npm packages of the lock. */
async function npmInfo(): Promise<{ cache: string; packages: NpmPackage[] }> {
  const deno = async (args: string[]) => {
    const output = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stderr: "inherit",
    }).output();
    if (!output.success) throw new Error(`deno ${args.join(" ")} failed`);
    return JSON.parse(new TextDecoder().decode(output.stdout));
  };
  const { npmCache } = await deno(["info", "--json"]);
  const { npmPackages } = await deno(["info", "--json", "--node-modules-dir=none", ENTRY]);
  return { cache: npmCache, packages: Object.values(npmPackages) };
}

function hostTarget(): string {
  const { arch, os } = Deno.build;
  return os === "windows"
    ? `${arch}-pc-windows-msvc`
    : os === "darwin"
    ? `${arch}-apple-darwin`
    : `${arch}-unknown-linux-gnu`;
}

if (import.meta.main) {
  const args = [...Deno.args];
  const dryRun = args.includes("--dry-run");
  const all = args.includes("--all");
  const targets = all
    ? Object.keys(TARGETS)
    : args.flatMap((arg, i) => args[i - 1] === "--target" ? [arg] : []);
  const unknown = targets.filter((target) => !(target in TARGETS));
  if (unknown.length > 0) {
    console.error(`Unknown target ${unknown.join(", ")}; the targets are:`);
    console.error(Object.keys(TARGETS).join("\n"));
    Deno.exit(2);
  }
  const npm = await npmInfo();
  const builds: [string | undefined, string][] = targets.length === 0
    ? [[undefined, Deno.build.os === "windows" ? "dist/svc.exe" : "dist/svc"]]
    : targets.map((target) => [target, `dist/${TARGETS[target]}`]);
  for (const [target, output] of builds) {
    const exclude = (target ?? hostTarget()).endsWith("-linux-gnu")
      ? muslPackages(npm.packages).map((p) =>
        join(npm.cache, new URL(p.registryUrl).hostname, p.name, p.version)
      )
      : [];
    const compile = compileArgs(target, { output, exclude });
    console.error(`deno ${compile.join(" ")}`);
    if (dryRun) continue;
    const { success } = await new Deno.Command(Deno.execPath(), { args: compile, cwd: ROOT })
      .spawn().status;
    if (!success) Deno.exit(1);
  }
}
