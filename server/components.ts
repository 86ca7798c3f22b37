/**
 * The components a configuration names, loaded once for the server: the
 * authentication, the source storages and the assistants.
 * @module
 */
import {
  Assistant,
  type Component,
  type Family,
  SourceStorage,
} from "../components/core/component.ts";
import { quote, SvcError } from "../components/core/errors.ts";
import { Rag, UnavailableComponentError } from "../components/core/rag.ts";
import { loadClass, REGISTRY } from "../components/registry.ts";
import { Authentication } from "./auth/authentication.ts";
import "./auth/registry.ts";
import type { Config } from "./config.ts";

/** The server's components. */
export interface ServerComponents {
  rag: Rag;
  authentication: Authentication;
  sourceStorages: SourceStorage[];
  assistants: Assistant[];
}

/** Options of {@linkcode loadComponents}. */
export interface LoadComponentsOptions {
  /** Skip unavailable components with a warning instead of failing. */
  ignoreUnavailable?: boolean;
  /** Where warnings go. */
  warn?: (line: string) => void;
}

/**
 * Loads and instantiates the components of a configuration.
 *
 * @throws {SvcError} naming an unavailable component and its unmet
 * requirements (unless ignored), a family left without any component, two
 * components with one display name, or an authentication class that is not one
 */
export async function loadComponents(
  config: Config,
  options: LoadComponentsOptions = {},
): Promise<ServerComponents> {
  const rag = new Rag(REGISTRY);
  const load = async <T extends Component>(paths: string[], family: Family<T>, noun: string) => {
    const loaded: T[] = [];
    for (const path of paths) {
      try {
        loaded.push((await rag.loadComponent(path, family, { base: config.base }))!);
      } catch (error) {
        if (!options.ignoreUnavailable || !(error instanceof UnavailableComponentError)) {
          throw error;
        }
        options.warn?.(`Ignoring ${quote(path)}: ${error.message}`);
      }
    }
    if (loaded.length === 0) {
      throw new SvcError(`No ${noun} is available: ${paths.map(quote).join(", ")} cannot run here`);
    }
    const names = new Map<string, string>();
    for (const component of loaded) {
      const other = names.get(component.displayName);
      if (other) {
        throw new SvcError(
          `Two ${noun}s are called ${
            quote(component.displayName)
          }; users could not tell them apart`,
        );
      }
      names.set(component.displayName, component.constructor.name);
    }
    return loaded;
  };
  const sourceStorages = await load(config.sourceStorages, SourceStorage, "source storage");
  const assistants = await load(config.assistants, Assistant, "assistant");

  const authenticationClass = await loadClass(config.authentication, { base: config.base });
  if (
    typeof authenticationClass !== "function" ||
    !(authenticationClass.prototype instanceof Authentication)
  ) {
    throw new SvcError(`${quote(config.authentication)} is not a subclass of Authentication`, {
      status: 422,
    });
  }
  const authentication = new (authenticationClass as new () => Authentication)();
  return { rag, authentication, sourceStorages, assistants };
}
