/**
 * Class path -> class for every built-in component, and the loader of a
 * user's own components, named `specifier#Export`: the resolver of class
 * paths that every `Rag` uses unless given another. Loading it also makes
 * svc's document handlers what `Document.extractPages()` reads with.
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Document, LocalDocument } from "./core/document.ts";
import { quote, SvcError } from "./core/errors.ts";
import { type ClassResolver, Rag } from "./core/rag.ts";
import { readPages } from "./documents/mod.ts";
import * as assistants from "./assistants/mod.ts";
import * as sourceStorages from "./source_storages/mod.ts";

/** Every built-in class, by class path. */
export const BUILTINS: Readonly<Record<string, unknown>> = {
  "svc.core.LocalDocument": LocalDocument,
  ...prefixed("svc.source_storages", sourceStorages),
  ...prefixed("svc.assistants", assistants),
};

/**
 * Adds classes under a class path prefix; another part of svc (the deploy
 * side) registers its own this way.
 */
export function register(prefix: string, classes: Record<string, unknown>): void {
  Object.assign(BUILTINS, prefixed(prefix, classes));
}

/** The built-in class of a class path, or `undefined`. */
export function builtinClass(classPath: string): unknown {
  return Object.hasOwn(BUILTINS, classPath) ? BUILTINS[classPath] : undefined;
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
 * The class a class path names: a built-in (`svc.assistants.SvcDemoAssistant`)
 * or the export of a module (`./my_components.ts#MyAssistant`,
 * `file:///abs/path.ts#X`, `npm:pkg#X`), imported on demand.
 *
 * @throws {SvcError} 422 for an unknown class path (listing the known ones), a
 * module that cannot be loaded, or a missing export
 */
export async function loadClass(
  classPath: string,
  options: LoadClassOptions = {},
): Promise<unknown> {
  const builtin = builtinClass(classPath);
  if (builtin !== undefined) return builtin;
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

/** svc's class paths, as a {@linkcode ClassResolver}: the built-ins, then a user's modules. */
export const REGISTRY: ClassResolver = {
  find(classPath) {
    if (isModulePath(classPath)) return undefined;
    const builtin = builtinClass(classPath);
    if (builtin === undefined) throw unknownClassPath(classPath);
    return builtin;
  },
  load: loadClass,
};

// svc put together: a Rag finds classes here, a document reads its pages with svc's handlers.
Rag.defaultResolver = REGISTRY;
Document.pageReader = readPages;

/** The error for a class path that names nothing known. */
export function unknownClassPath(classPath: string): SvcError {
  return new SvcError(
    `Unknown class path ${quote(classPath)}; the built-in ones are ` +
      `${Object.keys(BUILTINS).sort().join(", ")}, and your own are named "./module.ts#Export"`,
    { status: 422 },
  );
}

function moduleUrl(specifier: string, base: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier) && !/^[a-z]:[\\/]/i.test(specifier)) return specifier;
  const path = isAbsolute(specifier) ? specifier : resolve(base, specifier);
  return pathToFileURL(path).href;
}

function prefixed(prefix: string, classes: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(classes).map(([name, value]) => [`${prefix}.${name}`, value]),
  );
}
