/**
 * What a component needs before it can run: environment variables, npm
 * modules that must load, servers that must answer, models they must serve.
 * `svc check` reports them.
 * @module
 */
import { redactUrls } from "./redact_url.ts";

/** One thing a component needs. */
export interface Requirement {
  /** What kind of thing is needed; `svc check` groups by it. */
  readonly kind: "env" | "package" | "server" | "model";
  /** What is needed, as a user would look for it: `OPENAI_API_KEY`, `@lancedb/lancedb`. */
  readonly name: string;
  /** Whether it is met now. */
  isAvailable(): Promise<boolean>;
}

/**
 * An environment variable that must be set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EnvVarRequirement } from "@svc/svc";
 * const key = new EnvVarRequirement("OPENAI_API_KEY");
 * assert(key.name === "OPENAI_API_KEY");
 * ```
 */
export class EnvVarRequirement implements Requirement {
  readonly kind = "env";
  constructor(readonly name: string) {}

  isAvailable(): Promise<boolean> {
    return Promise.resolve(envVar(this.name) !== undefined);
  }
}

/**
 * An npm module that must load (a native addon can be installed and still
 * fail to load on this system). The loader is a function so that the module is
 * only imported when asked, and so that `deno compile` sees the specifier.
 */
export class PackageRequirement implements Requirement {
  readonly kind = "package";
  #loaded?: Promise<boolean>;

  constructor(readonly name: string, private readonly load: () => Promise<unknown>) {}

  isAvailable(): Promise<boolean> {
    this.#loaded ??= this.load().then(() => true, () => false);
    return this.#loaded;
  }
}

/** Options of {@linkcode ServerRequirement}. */
export interface ServerRequirementOptions {
  /**
   * How long to wait for an answer, in milliseconds.
   * @default {2000}
   */
  timeout?: number;
}

/**
 * A server that must answer HTTP at a URL; any HTTP response counts, since
 * the server is there even when it refuses the request. A URL in its name
 * (`Ollama at "http://gpu-box:11434"`) is shown without its user name,
 * password, query or fragment, since `svc check` prints the name and an
 * unavailable component's error, which any user may read, gives it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ServerRequirement } from "@svc/svc";
 * const url = "http://ada:secret@gpu-box:11434/?key=secret";
 * const server = new ServerRequirement(`Ollama at "${url}"`, () => url);
 * assert.equal(server.name, 'Ollama at "http://gpu-box:11434/"');
 * ```
 */
export class ServerRequirement implements Requirement {
  readonly kind = "server";
  readonly name: string;

  constructor(
    name: string,
    private readonly url: () => string,
    private readonly options: ServerRequirementOptions = {},
  ) {
    this.name = redactUrls(name);
  }

  async isAvailable(): Promise<boolean> {
    try {
      const response = await fetch(this.url(), {
        signal: AbortSignal.timeout(this.options.timeout ?? 2000),
      });
      await response.body?.cancel();
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * A model that a server must serve, asked of the server's own list of models, so that a model
 * name the server does not know is caught before a chat asks for it. A server that gives no list
 * (it does not answer, or has none) does not fail it: its {@linkcode ServerRequirement} tells
 * whether it answers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ModelRequirement } from "@svc/svc";
 * const model = new ModelRequirement('"llama3.2" on Ollama', () => Promise.resolve(false));
 * assert.equal(await model.isAvailable(), false);
 * ```
 */
export class ModelRequirement implements Requirement {
  readonly kind = "model";
  readonly name: string;

  /**
   * `name` says which model on which server: `"llama3.2" on Ollama at "http://gpu-box:11434"`;
   * `served` answers whether the server serves it, `undefined` when it cannot be asked.
   */
  constructor(name: string, private readonly served: () => Promise<boolean | undefined>) {
    this.name = redactUrls(name);
  }

  async isAvailable(): Promise<boolean> {
    return await this.served().catch(() => undefined) !== false;
  }
}

/** The value of an environment variable; `undefined` when unset or not permitted. */
export function envVar(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/** A requirement in words: `the environment variable OPENAI_API_KEY`. */
export function describeRequirement(requirement: Requirement): string {
  switch (requirement.kind) {
    case "env":
      return `the environment variable ${requirement.name}`;
    case "package":
      return `the package ${requirement.name} to load`;
    case "model":
      return `the model ${requirement.name}`;
    case "server":
      // A name that says "server" already ("OpenAI-compatible server at ...") is not told it twice.
      return /\bserver\b/i.test(requirement.name)
        ? `the ${requirement.name} to answer`
        : `the server ${requirement.name} to answer`;
  }
}
