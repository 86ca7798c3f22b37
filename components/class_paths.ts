/**
 * Class paths resolved on first use: each built-in class path names the module that holds its
 * class, imported the first time the class is asked for, so that a server loads the modules of
 * the components its configuration names and no others. {@linkcode ClassPaths} is such a table;
 * {@linkcode CLASS_PATHS} is the components' own, which a `Rag` resolves with unless given
 * another, and which the deploy side extends with its authentications.
 * @module
 */
import { isAbsolute, pathToFileURL, resolve } from "./core/paths.ts";
import { quote, SvcError } from "./core/errors.ts";

/**
 * Finds the class a class path names: the built-in class paths, and a user's modules named
 * `specifier#Export`.
 */
export interface ClassResolver {
  /**
   * The class a class path names when no module has to be loaded for it;
   * `undefined` for a class path that names a user's module.
   *
   * @throws {SvcError} 422 for a class path that names nothing known
   */
  find(classPath: string): unknown;
  /**
   * The class a class path names, a user's module imported on demand.
   *
   * @throws {SvcError} 422 for an unknown class path, a module that cannot be
   * loaded, or a missing export
   */
  load(classPath: string, options?: LoadClassOptions): Promise<unknown>;
}

/** Loads the class of one class path. */
export type ClassLoader = () => Promise<unknown>;

/**
 * The module of every built-in component, by class path, relative to this file; its class is the
 * export named as the class path's last part. They are imported by a name Deno does not read
 * ahead: Deno prepares every module a literal import names, dynamic ones included, when the
 * importing module loads, which cost every `svc api` the modules of every component (some 40 ms
 * of processor time). `deploy/compile.ts` includes each in the binary.
 */
export const BUILTIN_MODULES: Readonly<Record<string, string>> = {
  "svc.core.LocalDocument": "./core/document.ts",
  "svc.source_storages.SvcDemoSourceStorage": "./source_storages/demo.ts",
  "svc.source_storages.LibSQL": "./source_storages/libsql.ts",
  "svc.source_storages.LanceDB": "./source_storages/lancedb.ts",
  "svc.source_storages.Chroma": "./source_storages/chroma.ts",
  "svc.source_storages.Postgres": "./source_storages/postgres.ts",
  "svc.assistants.Extractive": "./assistants/extractive.ts",
  "svc.assistants.SvcDemoAssistant": "./assistants/demo.ts",
  "svc.assistants.OpenAI": "./assistants/openai.ts",
  "svc.assistants.OpenAICompatible": "./assistants/openai.ts",
  "svc.assistants.Ollama": "./assistants/ollama.ts",
  "svc.assistants.Anthropic": "./assistants/anthropic.ts",
  "svc.assistants.Gemini": "./assistants/gemini.ts",
  "svc.assistants.Cohere": "./assistants/cohere.ts",
  "svc.assistants.AI21": "./assistants/ai21.ts",
};

/** Whether a class path names a user's module: `./my.ts#MyAssistant`, `npm:pkg#X`. */
export function isModulePath(classPath: string): boolean {
  return classPath.includes("#");
}

/** Options of {@linkcode ClassPaths.load}. */
export interface LoadClassOptions {
  /**
   * The folder that relative module specifiers are relative to.
   * @default {Deno.cwd()}
   */
  base?: string;
}

/**
 * A table of class paths, each with the loader of its class, loaded once; a class path that
 * names a user's module (`./my_components.ts#MyAssistant`, `file:///abs/path.ts#X`,
 * `npm:pkg#X`) is imported on demand. A table made by {@linkcode ClassPaths.with} knows its own
 * class paths, then those of the table it was made from, as that one has them when asked.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ClassPaths } from "./class_paths.ts";
 * class Nothing {}
 * const base = new ClassPaths({ "svc.example.Nothing": () => Promise.resolve(Nothing) });
 * const more = base.with("svc.more", { Else: () => Promise.resolve(class Else {}) });
 * assert.equal(await more.load("svc.example.Nothing"), Nothing);
 * assert.deepEqual(more.classPaths(), ["svc.example.Nothing", "svc.more.Else"]);
 * assert.deepEqual(base.classPaths(), ["svc.example.Nothing"]);
 * ```
 */
export class ClassPaths implements ClassResolver {
  readonly #loaders = new Map<string, ClassLoader>();
  /** The classes loaded so far, by class path. */
  readonly #loaded = new Map<string, unknown>();
  readonly #parent: ClassPaths | undefined;

  /** @param loaders the loader of each class path's class, by class path */
  constructor(loaders: Readonly<Record<string, ClassLoader>> = {}, parent?: ClassPaths) {
    for (const [classPath, loader] of Object.entries(loaders)) this.#loaders.set(classPath, loader);
    this.#parent = parent;
  }

  /** A new table: these class paths under a prefix, then this table's. */
  with(prefix: string, loaders: Readonly<Record<string, ClassLoader>>): ClassPaths {
    return new ClassPaths(prefixed(prefix, loaders), this);
  }

  /** Adds class paths under a prefix, each with the loader of its class. */
  registerLoaders(prefix: string, loaders: Readonly<Record<string, ClassLoader>>): void {
    for (const [classPath, loader] of Object.entries(prefixed(prefix, loaders))) {
      this.#loaders.set(classPath, loader);
      this.#loaded.delete(classPath);
    }
  }

  /** Adds classes that are loaded already under a prefix: {@linkcode ClassPaths.find} knows each. */
  registerClasses(prefix: string, classes: Readonly<Record<string, unknown>>): void {
    for (const [name, value] of Object.entries(classes)) {
      this.#loaders.set(`${prefix}.${name}`, () => Promise.resolve(value));
      this.#loaded.set(`${prefix}.${name}`, value);
    }
  }

  /** Every class path of the table, its module loaded or not: the base table's first. */
  classPaths(): string[] {
    return [...new Set([...this.#parent?.classPaths() ?? [], ...this.#loaders.keys()])];
  }

  /**
   * The class of a class path once it is loaded (by {@linkcode ClassPaths.load}, or registered
   * loaded); `undefined` until then, as for a user's module: the class is checked when it is
   * loaded.
   *
   * @throws {SvcError} 422 for a class path that names nothing known
   */
  find(classPath: string): unknown {
    if (isModulePath(classPath)) return undefined;
    if (this.#loaders.has(classPath)) return this.#loaded.get(classPath);
    if (this.#parent?.has(classPath)) return this.#parent.find(classPath);
    throw this.unknown(classPath);
  }

  /** Whether the table knows a class path (a user's module is not in any table). */
  has(classPath: string): boolean {
    return this.#loaders.has(classPath) || (this.#parent?.has(classPath) ?? false);
  }

  /**
   * The class a class path names: a built-in, its module imported the first time, or the export
   * of a user's module, imported on demand.
   *
   * @throws {SvcError} 422 for an unknown class path (listing the known ones), a module that
   * cannot be loaded, or a missing export
   */
  async load(classPath: string, options: LoadClassOptions = {}): Promise<unknown> {
    const loader = this.#loaders.get(classPath);
    if (loader) {
      if (!this.#loaded.has(classPath)) this.#loaded.set(classPath, await loader());
      return this.#loaded.get(classPath);
    }
    if (isModulePath(classPath)) return await loadModuleExport(classPath, options);
    if (this.#parent?.has(classPath)) return await this.#parent.load(classPath, options);
    throw this.unknown(classPath);
  }

  /** The error for a class path that names nothing this table knows. */
  unknown(classPath: string): SvcError {
    return new SvcError(
      `Unknown class path ${quote(classPath)}; the built-in ones are ` +
        `${this.classPaths().sort().join(", ")}, and your own are named "./module.ts#Export"`,
      { status: 422 },
    );
  }
}

/** The components' class paths: every built-in component, loaded when first asked for. */
export const CLASS_PATHS: ClassPaths = new ClassPaths(
  Object.fromEntries(
    Object.entries(BUILTIN_MODULES).map(([path, module]) => [
      path,
      async () => (await import(module))[path.split(".").at(-1)!],
    ]),
  ),
);

/**
 * The class a class path names, in {@linkcode CLASS_PATHS}.
 *
 * @throws {SvcError} 422 for an unknown class path (listing the known ones), a
 * module that cannot be loaded, or a missing export
 */
export function loadClass(classPath: string, options: LoadClassOptions = {}): Promise<unknown> {
  return CLASS_PATHS.load(classPath, options);
}

async function loadModuleExport(classPath: string, options: LoadClassOptions): Promise<unknown> {
  const hash = classPath.lastIndexOf("#");
  const specifier = classPath.slice(0, hash);
  const exportName = classPath.slice(hash + 1);
  let module: Record<string, unknown>;
  try {
    module = await import(moduleUrl(specifier, options.base ?? Deno.cwd()));
  } catch (error) {
    throw new SvcError(`Cannot load ${quote(classPath)}: ${(error as Error).message}`, {
      status: 422,
      cause: error,
    });
  }
  if (!(exportName in module)) {
    const exports = Object.keys(module).sort().join(", ") || "none";
    throw new SvcError(
      `Cannot load ${quote(classPath)}: the module has no export ${quote(exportName)}; ` +
        `its exports are ${exports}`,
      { status: 422 },
    );
  }
  return module[exportName];
}

function moduleUrl(specifier: string, base: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier) && !/^[a-z]:[\\/]/i.test(specifier)) return specifier;
  const path = isAbsolute(specifier) ? specifier : resolve(base, specifier);
  return pathToFileURL(path).href;
}

function prefixed<T>(prefix: string, entries: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(entries).map(([name, value]) => [`${prefix}.${name}`, value]),
  );
}
