/**
 * Class path -> class for every built-in component, and the loader of a
 * user's own components, named `specifier#Export`: the resolver of class
 * paths that every `Rag` uses unless given another. Loading it loads every
 * built-in component's module at once, so that `BUILTINS` holds the classes
 * and `REGISTRY.find` knows each; svc's server and commands resolve the same
 * class paths through `class_paths.ts`, which loads a module on first use.
 * Loading it also makes svc's document handlers what
 * `Document.extractPages()` reads with.
 * @module
 */
import { Document, LocalDocument } from "./core/document.ts";
import { type ClassResolver, Rag } from "./core/rag.ts";
import { CLASS_PATHS, registerClasses } from "./class_paths.ts";
import { readPages } from "./documents/mod.ts";
import * as assistants from "./assistants/mod.ts";
import * as sourceStorages from "./source_storages/mod.ts";

export { isModulePath, loadClass, unknownClassPath } from "./class_paths.ts";
export type { LoadClassOptions } from "./class_paths.ts";

/** Every built-in class, by class path. */
export const BUILTINS: Readonly<Record<string, unknown>> = {};

/**
 * Adds classes under a class path prefix; another part of svc (the deploy
 * side) registers its own this way.
 */
export function register(prefix: string, classes: Record<string, unknown>): void {
  Object.assign(BUILTINS, prefixed(prefix, classes));
  registerClasses(prefix, classes);
}

register("svc.core", { LocalDocument });
register("svc.source_storages", sourceStorages);
register("svc.assistants", assistants);

/** The built-in class of a class path, or `undefined`. */
export function builtinClass(classPath: string): unknown {
  return Object.hasOwn(BUILTINS, classPath) ? BUILTINS[classPath] : undefined;
}

/** svc's class paths, as a {@linkcode ClassResolver}: the built-ins, then a user's modules. */
export const REGISTRY: ClassResolver = CLASS_PATHS;

// svc put together: a Rag finds classes here, a document reads its pages with svc's handlers.
Rag.defaultResolver = REGISTRY;
Document.pageReader = readPages;

function prefixed(prefix: string, classes: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(classes).map(([name, value]) => [`${prefix}.${name}`, value]),
  );
}
