/**
 * Every built-in component's class, by class path, loaded at once: the
 * library's view of the class paths that `class_paths.ts` resolves on first
 * use. svc's server and commands use `class_paths.ts` directly, so that they
 * load only the modules of the components a configuration names.
 * @module
 */
import { LocalDocument } from "./core/document.ts";
import { CLASS_PATHS, type ClassResolver } from "./class_paths.ts";
import * as assistants from "./assistants/mod.ts";
import * as sourceStorages from "./source_storages/mod.ts";

export { ClassPaths, isModulePath, loadClass } from "./class_paths.ts";
export type { ClassLoader, ClassResolver, LoadClassOptions } from "./class_paths.ts";

/** Every built-in class, by class path; {@linkcode register} adds more. */
export const BUILTINS: Readonly<Record<string, unknown>> = {
  ...prefixed("svc.core", { LocalDocument }),
  ...prefixed("svc.source_storages", sourceStorages),
  ...prefixed("svc.assistants", assistants),
};

/**
 * Adds classes under a class path prefix, to {@linkcode BUILTINS} and to the
 * class paths every `Rag` resolves by default, so that a class path names
 * them from then on.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Assistant, BUILTINS, Rag, register } from "@svc/svc";
 * class Echo extends Assistant {
 *   override *answer(prompt: string) {
 *     yield prompt;
 *   }
 * }
 * register("my.assistants", { Echo });
 * assert.equal(BUILTINS["my.assistants.Echo"], Echo);
 * assert.ok(await new Rag().loadComponent("my.assistants.Echo", Assistant) instanceof Echo);
 * ```
 */
export function register(prefix: string, classes: Record<string, unknown>): void {
  Object.assign(BUILTINS, prefixed(prefix, classes));
  CLASS_PATHS.registerClasses(prefix, classes);
}

/** svc's class paths, as a {@linkcode ClassResolver}: the built-ins, then a user's modules. */
export const REGISTRY: ClassResolver = CLASS_PATHS;

function prefixed(prefix: string, classes: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(classes).map(([name, value]) => [`${prefix}.${name}`, value]),
  );
}
