/**
 * The configuration of svc, `svc.toml`: read, checked as a whole, completed
 * with defaults and environment variables, and written back.
 * @module
 */
import { dirname, join, resolve } from "../components/core/paths.ts";
import { parse, stringify, TomlError } from "smol-toml";
import { quote, SvcError } from "../components/core/errors.ts";
import { redactUrls } from "../components/core/redact_url.ts";
import { build, type Env, envReader } from "./config_load.ts";

/** The header of the API's `/health` that carries {@linkcode Config.fingerprint}. */
export const CONFIGURATION_HEADER = "Svc-Configuration";

export type { Env };

/** The `[api]` table: where the REST API binds and how it is reached. */
export interface ApiConfig {
  hostname: string;
  port: number;
  /** A path prefix for a proxy, `""` or like `"/svc"`. */
  rootPath: string;
  /** Where clients (the web UI) reach the API; it has no effect on binding. */
  url: string;
  /** The origins CORS allows, as configured (see {@linkcode withLocalhostTwins}). */
  origins: string[];
  /** `sqlite://` (in memory), `sqlite:////absolute/path`, or a libSQL server URL. */
  databaseUrl: string;
  /**
   * Serve the demo sign-in on an address other than loopback, where anyone
   * who reaches it can log in as any user.
   */
  allowInsecureDemoSignIn: boolean;
}

/** The `[ui]` table: where the web UI binds. */
export interface UiConfig {
  hostname: string;
  port: number;
  origins: string[];
}

/** Options of {@linkcode Config.from}. */
export interface ConfigOptions {
  /**
   * The folder relative paths and `./module.ts#Export` class paths are relative to.
   * @default {Deno.cwd()}
   */
  base?: string;
  /**
   * The environment variables, which beat the values.
   * @default {readEnv(), the environment read once (settings.ts)}
   */
  env?: Env;
}

/** Options of {@linkcode Config.fromFile}. */
export interface FromFileOptions {
  /**
   * The environment variables, which beat the file.
   * @default {readEnv(), the environment read once (settings.ts)}
   */
  env?: Env;
}

/** Options of {@linkcode Config.toFile}. */
export interface ToFileOptions {
  /**
   * Overwrite an existing file.
   * @default {false}
   */
  force?: boolean;
  /**
   * Write only the options that differ from their defaults.
   * @default {false}
   */
  minimal?: boolean;
}

type Tables = Record<string, unknown> & {
  api: Record<string, unknown>;
  ui: Record<string, unknown>;
};

function leaf(values: Tables, key: string): unknown {
  const [table, name] = key.split(".");
  return name === undefined ? values[table!] : (values[table!] as Record<string, unknown>)[name];
}

const MINIMAL_ORDER = [
  "local_root",
  "authentication",
  "document",
  "source_storages",
  "assistants",
  "api.hostname",
  "api.port",
  "api.root_path",
  "ui.hostname",
  "ui.port",
  "api.url",
  "api.database_url",
  "api.origins",
  "ui.origins",
  "api.allow_insecure_demo_sign_in",
];

/**
 * A valid configuration: every value checked, relative paths made absolute,
 * defaults filled in. Each option comes from its environment variable
 * (`SVC_LOCAL_ROOT`, `SVC_API_PORT`, lists as JSON), else from the file, else
 * from its default.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Config } from "./config.ts";
 * const config = Config.from({ api: { port: 8000 } }, { env: {} });
 * assert(config.api.url === "http://127.0.0.1:8000");
 * assert(config.ui.port === 31477);
 * ```
 */
export class Config {
  /** The folder where svc and its components keep their files. */
  localRoot: string;
  /** The class path of the authentication. */
  authentication: string;
  /** The class path of the document class. */
  document: string;
  /** The class paths of the source storages, at least one. */
  sourceStorages: string[];
  /** The class paths of the assistants, at least one. */
  assistants: string[];
  api: ApiConfig;
  ui: UiConfig;
  /** The folder `./module.ts#Export` class paths are relative to: the file's folder, or cwd. */
  base: string;

  private constructor(values: ReadonlyMap<string, unknown>, base: string) {
    // deno-lint-ignore no-explicit-any
    const get = (key: string): any => values.get(key);
    this.localRoot = get("local_root");
    this.authentication = get("authentication");
    this.document = get("document");
    this.sourceStorages = get("source_storages");
    this.assistants = get("assistants");
    this.api = {
      hostname: get("api.hostname"),
      port: get("api.port"),
      rootPath: get("api.root_path"),
      url: get("api.url"),
      origins: get("api.origins"),
      databaseUrl: get("api.database_url"),
      allowInsecureDemoSignIn: get("api.allow_insecure_demo_sign_in"),
    };
    this.ui = { hostname: get("ui.hostname"), port: get("ui.port"), origins: get("ui.origins") };
    this.base = base;
  }

  /**
   * Reads a TOML file. Relative paths in it are relative to its folder.
   *
   * @throws {SvcError} for a missing or unreadable file, a TOML syntax error
   * (with its line and column), or invalid values (all of them, one a line)
   */
  static async fromFile(path: string, options: FromFileOptions = {}): Promise<Config> {
    const file = resolve(path);
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (error) {
      throw cannotRead(file, error);
    }
    let values: Record<string, unknown>;
    try {
      // Integers above 2^53 become bigints, refused as a wrong type, not a crash.
      values = parse(text, { integersAsBigInt: "asNeeded" });
    } catch (error) {
      if (!(error instanceof TomlError)) throw error;
      const problem = error.message.replace(/^Invalid TOML document: /, "").split("\n")[0];
      throw new SvcError(
        `Cannot read the configuration ${quote(file)}: ` +
          `invalid TOML at line ${error.line}, column ${error.column}: ${problem}`,
        { cause: error },
      );
    }
    const base = dirname(file);
    return new Config(build(values, { base, env: options.env, source: file }), base);
  }

  /**
   * Makes a configuration from values shaped like the TOML file (snake_case
   * keys, `api` and `ui` tables).
   *
   * @throws {SvcError} for invalid values, all of them, one a line
   */
  static from(values: Record<string, unknown>, options: ConfigOptions = {}): Config {
    const base = resolve(options.base ?? ".");
    return new Config(build(values, { base, env: options.env }), base);
  }

  /**
   * The configuration as TOML, which {@linkcode Config.from} reads back as the
   * same. With `minimal`, only the components and the options that differ
   * from what their defaults would give, so that derived values (`api.url`,
   * the origins, the database) keep following the options they derive from.
   */
  toToml(options: { minimal?: boolean } = {}): string {
    const values = this.#values();
    if (!options.minimal) return stringify(values);
    const given: Record<string, Record<string, unknown>> = { api: {}, ui: {} };
    const top = given as unknown as Record<string, unknown>;
    // Options others derive from come first, so a derived one is only kept when it differs.
    for (const key of MINIMAL_ORDER) {
      const wanted = leaf(values, key);
      const derived = leaf(Config.from(top, { base: this.base, env: {} }).#values(), key);
      const shown = key === "source_storages" || key === "assistants";
      if (!shown && JSON.stringify(derived) === JSON.stringify(wanted)) continue;
      const [table, name] = key.split(".");
      if (name) given[table!]![name] = wanted;
      else top[key] = wanted;
    }
    for (const table of ["api", "ui"]) {
      if (Object.keys(given[table]!).length === 0) delete given[table];
    }
    return stringify(given);
  }

  /**
   * A short digest of the options in effect (the file's and the environment's together): two
   * svc processes with the same fingerprint serve the same configuration. The API sends it with
   * `/health`, so that `svc ui` tells its own API from another.
   */
  async fingerprint(): Promise<string> {
    // Without the passwords and tokens of its URLs: /health shows the digest to anyone, and a
    // digest of a secret lets it be guessed offline.
    const options = new TextEncoder().encode(redactUrls(this.toToml()));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", options));
    return [...digest.subarray(0, 8)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  }

  #values(): Tables {
    return {
      local_root: this.localRoot,
      authentication: this.authentication,
      document: this.document,
      source_storages: this.sourceStorages,
      assistants: this.assistants,
      api: {
        hostname: this.api.hostname,
        port: this.api.port,
        root_path: this.api.rootPath,
        url: this.api.url,
        database_url: this.api.databaseUrl,
        origins: this.api.origins,
        allow_insecure_demo_sign_in: this.api.allowInsecureDemoSignIn,
      },
      ui: { hostname: this.ui.hostname, port: this.ui.port, origins: this.ui.origins },
    };
  }

  /**
   * Writes {@linkcode Config.toToml} to a file, creating its folder.
   *
   * @throws {SvcError} when the file exists and `force` is not set, or cannot be written
   */
  async toFile(path: string, options: ToFileOptions = {}): Promise<void> {
    const file = resolve(path);
    try {
      await Deno.mkdir(dirname(file), { recursive: true });
      await Deno.writeTextFile(file, this.toToml({ minimal: options.minimal }), {
        createNew: !options.force,
      });
    } catch (error) {
      const problem = error instanceof Deno.errors.AlreadyExists
        ? "it exists already (use --force to overwrite)"
        : (error as Error).message;
      throw new SvcError(`Cannot write ${quote(file)}: ${problem}`, { cause: error });
    }
  }
}

/** Options of {@linkcode findConfigPath}. */
export interface FindConfigPathOptions {
  /** The path given with `-c/--config`. */
  config?: string;
  /**
   * The environment variables, for `SVC_CONFIG`.
   * @default {readEnv(), the environment read once (settings.ts)}
   */
  env?: Env;
  /**
   * The folder relative paths and `svc.toml` are looked up in.
   * @default {Deno.cwd()}
   */
  cwd?: string;
}

/**
 * The absolute path of the configuration file: the `--config` value, else
 * env `SVC_CONFIG`, else `./svc.toml` when it exists.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findConfigPath } from "./config.ts";
 * const cwd = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${cwd}/svc.toml`, "");
 * assert(findConfigPath({ cwd, env: {} }) === `${cwd}/svc.toml`);
 * ```
 *
 * @throws {SvcError} when no configuration is found, or the given one does not exist
 */
export function findConfigPath(options: FindConfigPathOptions = {}): string {
  const cwd = resolve(options.cwd ?? ".");
  const fallback = join(cwd, "svc.toml");
  const given = options.config ?? (envReader(options.env)("SVC_CONFIG") || undefined);
  if (given === undefined) {
    if (exists(fallback)) return fallback;
    throw new SvcError(
      'No configuration found: pass --config FILE, set SVC_CONFIG, or run "svc init" to write svc.toml',
    );
  }
  const path = resolve(cwd, given);
  if (!exists(path)) {
    const hint = path === fallback ? '; run "svc init" to write it' : "";
    throw new SvcError(
      `Cannot read the configuration ${quote(path)}: the file does not exist${hint}`,
    );
  }
  return path;
}

/**
 * The origins with the twin of each one on 127.0.0.1 or localhost, since a
 * browser sends whichever of the two the user typed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withLocalhostTwins } from "./config.ts";
 * const origins = withLocalhostTwins(["http://127.0.0.1:31477", "https://example.com"]);
 * assert(origins.join() === "http://127.0.0.1:31477,http://localhost:31477,https://example.com");
 * ```
 */
export function withLocalhostTwins(origins: readonly string[]): string[] {
  const result = new Set<string>();
  for (const origin of origins) {
    result.add(origin);
    const match = /^([a-z][a-z0-9+.-]*:\/\/)(127\.0\.0\.1|localhost)([:/?#].*)?$/is.exec(origin);
    if (!match) continue;
    const twin = match[2]!.toLowerCase() === "localhost" ? "127.0.0.1" : "localhost";
    result.add(`${match[1]}${twin}${match[3] ?? ""}`);
  }
  return [...result];
}

function cannotRead(file: string, error: unknown): SvcError {
  const problem = error instanceof Deno.errors.NotFound
    ? "the file does not exist"
    : error instanceof Deno.errors.IsADirectory
    ? "it is a folder"
    : (error as Error).message;
  return new SvcError(`Cannot read the configuration ${quote(file)}: ${problem}`, { cause: error });
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw cannotRead(path, error);
  }
}
