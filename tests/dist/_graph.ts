/**
 * What `deno compile` puts in the binary, as files of this checkout: the
 * module graph of the entry point and of each `--include`d module
 * (`deploy/compile.ts`).
 * @module
 */
import { relative } from "node:path";
import { ENTRY, INCLUDES } from "../../deploy/compile.ts";
import { denoArgs, run } from "../_process.ts";

/** The checkout's root folder, with a trailing slash. */
export const ROOT: string = new URL("../../", import.meta.url).pathname;

/** Where an import of a module leads, with the place of the import (lines from 0). */
export interface InfoResolved {
  specifier: string;
  span?: { start: { line: number; character: number } };
}

/** A module of the graph, as `deno info --json` describes it. */
export interface InfoModule {
  specifier: string;
  kind?: string;
  size?: number;
  npmPackage?: string;
  error?: string;
  /** Its imports: `code` where the import loads code, `type` where it is for types only. */
  dependencies?: { specifier: string; code?: InfoResolved; type?: InfoResolved }[];
}

/** The local files and the npm packages of the compiled program. */
export interface ProgramGraph {
  /** Paths relative to {@linkcode ROOT}, sorted. */
  files: string[];
  /** Their total size in bytes. */
  size: number;
  /** The npm packages the graph imports directly, as `name@version`. */
  npmPackages: string[];
}

/** `deno info --json` of a module of the checkout, resolved through the development lock. */
export async function info(
  module: string,
): Promise<{ modules: InfoModule[]; redirects: Record<string, string> }> {
  const args = denoArgs("info", "--json", "--node-modules-dir=none", module);
  const output = await run(Deno.execPath(), args, { env: { NO_COLOR: "1" } });
  if (output.code !== 0) throw new Error(`deno ${args.join(" ")} failed: ${output.stderr}`);
  return JSON.parse(output.stdout);
}

/** The graph of `main.ts` and of the included modules, as `deno compile` resolves it. */
export async function programGraph(): Promise<ProgramGraph> {
  const files = new Set<string>();
  const npmPackages = new Set<string>();
  let size = 0;
  for (const root of [ENTRY, ...INCLUDES]) {
    for (const module of (await info(root)).modules) {
      if (module.error) throw new Error(`${module.specifier}: ${module.error}`);
      if (module.npmPackage) npmPackages.add(module.npmPackage);
      if (!module.specifier.startsWith("file:")) continue;
      const path = new URL(module.specifier).pathname;
      if (!path.startsWith(ROOT) || path.includes("/node_modules/")) {
        throw new Error(`The program imports ${path}, outside the checkout's sources`);
      }
      const file = relative(ROOT, path);
      if (!files.has(file)) size += module.size ?? 0;
      files.add(file);
    }
  }
  return { files: [...files].sort(), size, npmPackages: [...npmPackages].sort() };
}

/**
 * Every use of `import.meta` in the program's files other than
 * `import.meta.main`: each must be `new URL("./literal", import.meta.url)`.
 * Returns the files those URLs point at, with whether a `new Worker` starts
 * it (given the URL, or the URL through one call), and the uses of any other
 * shape.
 */
export async function filesBesideModules(
  files: readonly string[],
): Promise<{ targets: { from: string; file: string; worker: boolean }[]; other: string[] }> {
  const targets: { from: string; file: string; worker: boolean }[] = [];
  const other: string[] = [];
  for (const from of files) {
    if (!/\.[cm]?[jt]sx?$/.test(from)) continue;
    const text = await Deno.readTextFile(`${ROOT}${from}`);
    // Comments hold examples, not code that runs.
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    // A worker's URL may pass through one call first (`new Worker(startable(new URL(...)))`).
    const url =
      /(new Worker\(\s*(?:\w+\(\s*)?)?new URL\(\s*(["'`])([^"'`]+)\2,\s*import\.meta\.url\s*\)/g;
    for (const match of code.matchAll(url)) {
      const path = new URL(match[3]!, `file://${ROOT}${from}`).pathname;
      targets.push({ from, file: relative(ROOT, path), worker: match[1] !== undefined });
    }
    for (const match of code.replace(url, "").matchAll(/import\.meta\.(\w+)/g)) {
      if (match[1] !== "main") other.push(`${from}: import.meta.${match[1]}`);
    }
  }
  return { targets, other };
}
