/**
 * A binary carries the native addons of one platform, extracted when they
 * load; one that cannot load there (another libc, a missing system library)
 * must not stop `svc` from starting. So the program imports a package with a
 * native addon at start-up only for its database, and a component loads one
 * on demand and says so in its requirements.
 * @module
 */
import assert from "node:assert/strict";
import { relative } from "node:path";
import { ENTRY, INCLUDES } from "../../deploy/compile.ts";
import { info, ROOT } from "./_graph.ts";
import { integration } from "../_tier.ts";

interface InfoDependency {
  code?: { specifier?: string };
  isDynamic?: boolean;
}

interface LockPackage {
  os?: string[];
  dependencies?: string[];
  optionalDependencies?: string[];
}

/**
 * The npm packages that depend, themselves or through others, on a native
 * addon, as the development lock lists them (it holds the optional ones too).
 */
async function nativePackages(): Promise<Set<string>> {
  const lock = JSON.parse(await Deno.readTextFile(`${ROOT}deno.dev.lock`));
  const packages: Record<string, LockPackage> = lock.npm;
  const ids = Object.keys(packages);
  const resolve = (dependency: string) =>
    packages[dependency]
      ? dependency
      : ids.find((id) => id.startsWith(`${dependency}@`)) ?? dependency;
  const native = new Map<string, boolean>();
  const isNative = (id: string, seen: Set<string>): boolean => {
    if (native.has(id)) return native.get(id)!;
    if (seen.has(id)) return false;
    seen.add(id);
    const entry = packages[id] ?? {};
    // A package built for some platforms only (`os`) is a native addon or its loader.
    const result = entry.os !== undefined ||
      [...entry.dependencies ?? [], ...entry.optionalDependencies ?? []]
        .some((dependency) => isNative(resolve(dependency), seen));
    native.set(id, result);
    return result;
  };
  return new Set(ids.filter((id) => isNative(id, new Set())));
}

/**
 * Each import of an npm package by a module of the program: who, what, and
 * whether on demand. An optional package (`components/packages.ts`) is
 * imported on demand by name, which the graph does not show: those are found
 * in the sources.
 */
async function npmImports(): Promise<{ from: string; npm: string; dynamic: boolean }[]> {
  const imports: { from: string; npm: string; dynamic: boolean }[] = [];
  for (const root of [ENTRY, ...INCLUDES]) {
    for (const module of (await info(root)).modules) {
      if (!module.specifier.startsWith("file:")) continue;
      const path = new URL(module.specifier).pathname;
      const source = await Deno.readTextFile(path);
      for (const match of source.matchAll(/importPackage(?:<[^>]*>)?\(\s*"([^"]+)"/g)) {
        imports.push({ from: relative(ROOT, path), npm: match[1]!, dynamic: true });
      }
      const dependencies = (module as { dependencies?: InfoDependency[] }).dependencies ?? [];
      for (const dependency of dependencies) {
        const code: string | undefined = dependency.code?.specifier;
        if (!code?.startsWith("npm:")) continue;
        imports.push({
          from: relative(ROOT, path),
          npm: code.slice(4).replace(/^\//, ""),
          dynamic: dependency.isDynamic === true,
        });
      }
    }
  }
  return imports;
}

integration.test("only the database client imports a native addon at start-up; components load theirs on demand", async () => {
  const native = new Set([...await nativePackages()].map(npmName));
  const imports = (await npmImports()).filter((entry) => native.has(npmName(entry.npm)));
  assert.ok(imports.length > 0, "the database client has a native addon (libSQL)");

  const atStartUp = imports.filter((entry) => !entry.dynamic);
  assert.deepEqual(
    atStartUp.filter((entry) => !entry.from.startsWith("server/database/")),
    [],
    "a package with a native addon imported at start-up outside server/database/",
  );

  for (const entry of imports.filter((entry) => entry.dynamic)) {
    if (!/^components\/(source_storages|assistants|embeddings)\//.test(entry.from)) continue;
    const source = await Deno.readTextFile(`${ROOT}${entry.from}`);
    const name = npmName(entry.npm);
    assert.match(
      source,
      new RegExp(`new PackageRequirement\\(\\s*"${name.replace(/[/.]/g, "\\$&")}"`),
      `${entry.from} loads ${name} on demand: it must declare new PackageRequirement("${name}", ...)`,
    );
  }
});

/** `@scope/name` or `name` of `@scope/name@1.0.0/sub/path` or `name@1.0.0_peer@2`. */
function npmName(specifier: string): string {
  const match = /^(@[^/@]+\/[^/@]+|[^/@]+)/.exec(specifier);
  return match![1]!;
}
