/**
 * Class paths resolved on first use: each built-in class path names the module that holds its
 * class, imported the first time the class is asked for, so that a server loads the modules of
 * the components its configuration names and no others. `registry.ts`, the library's door, loads
 * every built-in at once on top of this; the server and the command line use this directly.
 * @module
 */
import { Document } from "./core/document.ts";
import { quote, SvcError } from "./core/errors.ts";
import { type ClassResolver, Rag } from "./core/rag.ts";
import { isAbsolute, resolve } from "pathe";

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

/** The document readers, imported as {@linkcode BUILTIN_MODULES} are, by {@linkcode loadReaders}. */
export const READERS_MODULE = "./documents/mod.ts";

const BUILTIN_LOADERS: Record<string, ClassLoader> = Object.fromEntries(
  Object.entries(BUILTIN_MODULES).map(([path, module]) => [
    path,
    async () => (await import(module))[path.split(".").at(-1)!],
  ]),
);

const loaders = new Map<string, ClassLoader>(Object.entries(BUILTIN_LOADERS));
/** The classes loaded so far, by class path. */
const loaded = new Map<string, unknown>();

/**
 * Adds class paths under a prefix, each with the loader of its class; another part of svc (the
 * deploy side) registers its own this way.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinClassPaths, registerLoaders } from "./class_paths.ts";
 * registerLoaders("svc.example", { Nothing: () => Promise.resolve(class Nothing {}) });
 * assert.ok(builtinClassPaths().includes("svc.example.Nothing"));
 * ```
 */
export function registerLoaders(prefix: string, classes: Record<string, ClassLoader>): void {
  for (const [name, loader] of Object.entries(classes)) {
    loaders.set(`${prefix}.${name}`, loader);
    loaded.delete(`${prefix}.${name}`);
  }
}

/** Adds classes that are loaded already under a prefix: found at once by {@linkcode CLASS_PATHS}. */
export function registerClasses(prefix: string, classes: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(classes)) {
    loaders.set(`${prefix}.${name}`, () => Promise.resolve(value));
    loaded.set(`${prefix}.${name}`, value);
  }
}

/** Every built-in class path, in the order registered, its module loaded or not. */
export function builtinClassPaths(): string[] {
  return [...loaders.keys()];
}

/** Whether a class path names a user's module: `./my.ts#MyAssistant`, `npm:pkg#X`. */
export function isModulePath(classPath: string): boolean {
  return classPath.includes("#");
}

/** Options of {@linkcode loadClass}. */
export interface LoadClassOptions {
  /**
   * The folder that relative module specifiers are relative to.
   * @default {Deno.cwd()}
   */
  base?: string;
}

/**
 * The class a class path names: a built-in (`svc.assistants.SvcDemoAssistant`), its module
 * imported the first time, or the export of a module (`./my_components.ts#MyAssistant`,
 * `file:///abs/path.ts#X`, `npm:pkg#X`), imported on demand.
 *
 * @throws {SvcError} 422 for an unknown class path (listing the known ones), a
 * module that cannot be loaded, or a missing export
 */
export async function loadClass(
  classPath: string,
  options: LoadClassOptions = {},
): Promise<unknown> {
  const loader = loaders.get(classPath);
  if (loader) {
    if (!loaded.has(classPath)) loaded.set(classPath, await loader());
    return loaded.get(classPath);
  }
  if (!isModulePath(classPath)) throw unknownClassPath(classPath);

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

/**
 * svc's class paths, as a {@linkcode ClassResolver}: the built-ins, then a user's modules. Its
 * `find` knows a built-in once its class is loaded (by `load`, or registered loaded), and answers
 * `undefined` until then, as for a user's module: the class is checked when it is loaded.
 */
export const CLASS_PATHS: ClassResolver = {
  find(classPath) {
    if (isModulePath(classPath)) return undefined;
    if (!loaders.has(classPath)) throw unknownClassPath(classPath);
    return loaded.get(classPath);
  },
  load: loadClass,
};

/** The error for a class path that names nothing known. */
export function unknownClassPath(classPath: string): SvcError {
  return new SvcError(
    `Unknown class path ${quote(classPath)}; the built-in ones are ` +
      `${builtinClassPaths().sort().join(", ")}, and your own are named "./module.ts#Export"`,
    { status: 422 },
  );
}

function moduleUrl(specifier: string, base: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier) && !/^[a-z]:[\\/]/i.test(specifier)) return specifier;
  const path = isAbsolute(specifier) ? specifier : resolve(base, specifier);
  return process.getBuiltinModule("node:url").pathToFileURL(path).href;
}

// svc put together, its handlers loaded when a document is first read: a Rag finds classes here,
// a document reads its pages with svc's handlers. Loading `registry.ts` sets the same, loaded.
Rag.defaultResolver = CLASS_PATHS;
Document.pageReader = async (document) => (await loadReaders()).readPages(document);

/**
 * The reading of documents, loaded when a document is first read, by a name
 * Deno does not read ahead: a start needs none of it. The readers themselves
 * (PDF.js, zip's with Node's zlib) load in the reader threads, never here.
 */
export function loadReaders(): Promise<typeof import("./documents/mod.ts")> {
  return import(READERS_MODULE);
}
