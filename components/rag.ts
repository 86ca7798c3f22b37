/**
 * The entry point of the library, `Rag`: it makes chats and finds their
 * components, by class, by instance or by class path through a
 * {@linkcode ClassResolver}, svc's own class paths unless given another.
 * @module
 */
import { Chat, type ChatComponents, type ChatOptions } from "./core/chat.ts";
import {
  type Component,
  type ComponentClass,
  type ComponentRef,
  displayNameOf,
  type Family,
} from "./core/component.ts";
import { quote, SvcError } from "./core/errors.ts";
import { describeRequirement } from "./core/requirements.ts";
import { CLASS_PATHS, type ClassResolver } from "./class_paths.ts";

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
export class Rag implements ChatComponents {
  readonly #resolver: ClassResolver;
  #instances = new Map<ComponentClass, Component>();

  /**
   * @param resolver finds the classes that class paths name; svc's class paths
   * ({@linkcode CLASS_PATHS}: the built-in components, then a user's modules) by default
   */
  constructor(resolver: ClassResolver = CLASS_PATHS) {
    this.#resolver = resolver;
  }

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
   * family; 422 naming the unmet requirements of an unavailable component (503 when one is a
   * server that does not answer)
   */
  async loadComponent<T extends Component>(
    ref: ComponentRef<T>,
    family: Family<T>,
    options: LoadComponentOptions = {},
  ): Promise<T | null> {
    const component = typeof ref === "string"
      ? checkFamily(await this.#resolver.load(ref, { base: options.base }), family, ref)
      : componentClassOf(ref, family);
    if (!(await component.isAvailable())) {
      if (options.ignoreUnavailable) return null;
      throw await unavailable(component);
    }
    return typeof ref === "object" ? ref : this.instance(component);
  }

  /**
   * The class of a component, when it is known without loading a module:
   * `undefined` for a class path that names a user's module.
   *
   * @throws {SvcError} 422 for an unknown class path or a class of another family
   */
  classOf<T extends Component>(
    ref: ComponentRef<T>,
    family: Family<T>,
  ): ComponentClass<T> | undefined {
    if (typeof ref !== "string") return componentClassOf(ref, family);
    const found = this.#resolver.find(ref);
    return found === undefined ? undefined : checkFamily(found, family, ref);
  }
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
    if (!(await requirement.isAvailable())) unmet.push(requirement);
  }
  // A server that does not answer (a database restarting) is an outage, not the request's fault.
  const outage = unmet.some((requirement) => requirement.kind === "server");
  return new UnavailableComponentError(
    `The component ${quote(displayNameOf(component))} is not available: it needs ${
      unmet.map(describeRequirement).join(", ")
    }`,
    { status: outage ? 503 : 422 },
  );
}
