/**
 * The components a configuration names, loaded once for the server: the
 * authentication, the class of uploaded documents, the source storages and
 * the assistants.
 * @module
 */
import type { Ollama as OllamaAssistant } from "../components/assistants/ollama.ts";
import {
  Assistant,
  type Component,
  displayNameOf,
  type Family,
  SourceStorage,
} from "../components/core/component.ts";
import { redactUrl } from "../components/core/redact_url.ts";
import { offersOllamaModels, ollamaModels, ollamaUrl } from "../components/served_models.ts";
import { Document, type DocumentClass } from "../components/core/document.ts";
import { quote, SvcError } from "../components/core/errors.ts";
import { Rag, UnavailableComponentError } from "../components/rag.ts";
import { Authentication } from "./auth/authentication.ts";
import { SERVER_CLASS_PATHS } from "./auth/registry.ts";
import type { Config } from "./config.ts";
import type { Env } from "./settings.ts";
import { shareApiDatabase } from "./database/url.ts";

/** The server's components. */
export interface ServerComponents {
  rag: Rag;
  authentication: Authentication;
  /** The class of every uploaded document: made with the upload's file as `metadata.path`. */
  document: DocumentClass;
  sourceStorages: SourceStorage[];
  assistants: Assistant[];
}

/** Options of {@linkcode loadComponents}. */
export interface LoadComponentsOptions {
  /** Skip unavailable components with a warning instead of failing. */
  ignoreUnavailable?: boolean;
  /** Where warnings go. */
  warn?: (line: string) => void;
  /** Where what svc found to offer goes (a local model server's models). */
  notice?: (line: string) => void;
  /**
   * The environment svc read at start: `SVC_OLLAMA_OFFER_MODELS`, `OLLAMA_HOST`, and the
   * authentication's own settings.
   * @default {{}}
   */
  env?: Env;
}

/**
 * The models of a local Ollama server (at `OLLAMA_HOST`, by default on this machine) as
 * assistants, after the configured ones and under other names than theirs, unless
 * `SVC_OLLAMA_OFFER_MODELS` is false: a local model is offered without a setting, and nothing is
 * loaded or needed without one.
 */
async function localModels(
  configured: readonly Assistant[],
  { notice, env = {} }: LoadComponentsOptions,
): Promise<Assistant[]> {
  if (!offersOllamaModels(env.SVC_OLLAMA_OFFER_MODELS)) return [];
  const host = ollamaUrl(env.OLLAMA_HOST?.trim() || undefined);
  const models = await ollamaModels(host);
  if (!models?.some((model) => !model.embedding)) return [];
  const Ollama = await SERVER_CLASS_PATHS.load("svc.assistants.Ollama") as typeof OllamaAssistant;
  const taken = new Set(configured.map((assistant) => assistant.displayName));
  const offered = models.filter((model) => !model.embedding)
    .map((model) => Ollama.pinned(model.name))
    .filter((model) => !taken.has(displayNameOf(model)));
  if (offered.length > 0) {
    notice?.(
      `Offering the models of Ollama at ${redactUrl(host)} as assistants: ` +
        offered.map((model) => quote(displayNameOf(model))).join(", "),
    );
  }
  return offered.map((model) => new model());
}

/**
 * Loads and instantiates the components of a configuration.
 *
 * @throws {SvcError} naming an unavailable component and its unmet
 * requirements (unless ignored), a family left without any component, two
 * components with one display name, or an authentication or document class
 * that is not one
 */
export async function loadComponents(
  config: Config,
  options: LoadComponentsOptions = {},
): Promise<ServerComponents> {
  // Before any component is made: the Postgres storage uses the API's database when it is one.
  shareApiDatabase(config.api.databaseUrl);
  const rag = new Rag(SERVER_CLASS_PATHS);
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
  assistants.push(...await localModels(assistants, options));

  // A class of the user's own may take no options; the built-in ones read their settings here.
  const Authenticating = await subclass<new (options: { env: Env }) => Authentication>(
    config.authentication,
    Authentication,
    config.base,
  );
  const authentication = new Authenticating({ env: options.env ?? {} });
  const document = await subclass<DocumentClass>(config.document, Document, config.base);
  return { rag, authentication, document, sourceStorages, assistants };
}

/**
 * The class a class path names, checked to extend `base`.
 *
 * @throws {SvcError} 422 when it is not a subclass of `base`
 */
async function subclass<T>(
  classPath: string,
  base: abstract new (...args: never[]) => unknown,
  from: string,
): Promise<T> {
  const found = await SERVER_CLASS_PATHS.load(classPath, { base: from });
  if (typeof found !== "function" || !(found.prototype instanceof base)) {
    throw new SvcError(`${quote(classPath)} is not a subclass of ${base.name}`, { status: 422 });
  }
  return found as T;
}
