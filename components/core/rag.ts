import { builtinClass, isModulePath, loadClass, unknownClassPath } from "../registry.ts";
import { Chat, type ChatOptions } from "./chat.ts";
import { type Component, type ComponentClass, displayNameOf } from "./component.ts";
import { quote, SvcError } from "./errors.ts";
import { describeRequirement } from "./requirements.ts";

/** A component given by class, by instance, or by class path. */
export type ComponentRef<T extends Component> = ComponentClass<T> | T | string;

/** The abstract class of a component family, to check what a class path names. */
// deno-lint-ignore no-explicit-any
export type Family<T extends Component> = abstract new (...args: any[]) => T;

/** Options of {@linkcode Rag.loadComponent}. */
export interface LoadComponentOptions {
  /**
   * Answer `null` for an unavailable component instead of throwing.
   * @default {false}
   */
  ignoreUnavailable?: boolean;
  /**
   * The folder that relative module specifiers are relative to.
   * @default {Deno.cwd()}
   */
  base?: string;
}

/**
 * The entry point of the library: makes chats, and keeps one instance of each
 * component class for all of them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rag } from "@svc/svc";
 * import { SvcDemoSourceStorage } from "@svc/svc/source_storages";
 * import { SvcDemoAssistant } from "@svc/svc/assistants";
 * const chat = new Rag().chat({
 *   documents: [],
 *   sourceStorage: SvcDemoSourceStorage,
 *   assistant: SvcDemoAssistant,
 * });
 * assert(!chat.prepared);
 * ```
 */
export class Rag {
  #instances = new Map<ComponentClass, Component>();

  /**
   * A new chat over documents, with a source storage and an assistant.
   *
   * @throws {SvcError} for an unsupported document, an unknown component, or
   * unknown, missing or wrong-type parameters (what can only be known after
   * loading a module is checked by `prepare()`)
   */
  chat(options: ChatOptions): Chat {
    return new Chat(this, options);
  }

  /** The one instance of a component class, made on first use. */
  instance<T extends Component>(component: ComponentClass<T>): T {
    let instance = this.#instances.get(component);
    if (!instance) {
      instance = new component();
      this.#instances.set(component, instance);
    }
    return instance as T;
  }

  /**
   * A component instance from a class, an instance or a class path, checked to
   * be of `family` and available.
   *
   * @throws {SvcError} 422 for an unknown class path or a class of another
   * family; 422 naming the unmet requirements of an unavailable component
   */
  async loadComponent<T extends Component>(
    ref: ComponentRef<T>,
    family: Family<T>,
    options: LoadComponentOptions = {},
  ): Promise<T | null> {
    const component = typeof ref === "string"
      ? checkFamily(await loadClass(ref, { base: options.base }), family, ref)
      : componentClassOf(ref, family);
    if (!(await component.isAvailable())) {
      if (options.ignoreUnavailable) return null;
      throw await unavailable(component);
    }
    return typeof ref === "object" ? ref : this.instance(component);
  }
}

/**
 * The class of a component given without loading a module, or `undefined`
 * when the class path names a user's module.
 */
export function resolveSync<T extends Component>(
  ref: ComponentRef<T>,
  family: Family<T>,
): ComponentClass<T> | undefined {
  if (typeof ref !== "string") return componentClassOf(ref, family);
  if (isModulePath(ref)) return undefined;
  const builtin = builtinClass(ref);
  if (builtin === undefined) throw unknownClassPath(ref);
  return checkFamily(builtin, family, ref);
}

function componentClassOf<T extends Component>(
  ref: ComponentClass<T> | T,
  family: Family<T>,
): ComponentClass<T> {
  if (typeof ref === "object" && ref !== null) {
    return checkFamily(ref.constructor, family, String(ref.constructor?.name));
  }
  return checkFamily(ref, family, String((ref as { name?: string })?.name ?? ref));
}

function checkFamily<T extends Component>(
  value: unknown,
  family: Family<T>,
  name: string,
): ComponentClass<T> {
  if (typeof value === "function" && value.prototype instanceof family) {
    return value as ComponentClass<T>;
  }
  throw new SvcError(`${quote(name)} is not a subclass of ${family.name}`, { status: 422 });
}

/** The error for a component whose requirements are not met. */
export class UnavailableComponentError extends SvcError {}

async function unavailable(component: ComponentClass): Promise<SvcError> {
  const unmet = [];
  for (const requirement of component.requirements) {
    if (!(await requirement.isAvailable())) unmet.push(describeRequirement(requirement));
  }
  return new UnavailableComponentError(
    `The component ${quote(displayNameOf(component))} is not available: it needs ${
      unmet.join(", ")
    }`,
    { status: 422 },
  );
}
