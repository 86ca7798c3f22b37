/**
 * What `svc api` does once its arguments are read: loads the configuration,
 * warns of unknown `SVC_` variables and serves the REST API until SIGINT or
 * SIGTERM. `cli/mod.ts` reads the usual arguments of `svc api` itself (see
 * {@linkcode apiArgs}), so that a server starts without loading commander.
 * @module
 */
import { Config, findConfigPath } from "../server/config.ts";
import { unknownEnvWarnings } from "../server/config_env.ts";
import { endSpareThread, startSpareThread } from "../server/database/thread.ts";
import { parseDatabaseUrl } from "../server/database/url.ts";
import { logLine } from "../server/log.ts";
import type { CommandContext } from "./context.ts";

/** The options of `svc api`. */
export interface ApiArgs {
  /** `-c, --config <path>`. */
  config?: string;
  /** `--ignore-unavailable-components`. */
  ignoreUnavailableComponents?: boolean;
  /** `--allow-insecure-demo-sign-in`. */
  allowInsecureDemoSignIn?: boolean;
}

/** The server, which `deploy/compile.ts` includes in the binary. */
export const SERVER = "../server/serve.ts";

// The flags of `svc api` as `cli/api.ts` gives them to commander (tests/cli/api_run_test.ts
// holds the two to the same names).
const FLAGS = new Map<string, keyof Omit<ApiArgs, "config">>([
  ["--ignore-unavailable-components", "ignoreUnavailableComponents"],
  ["--allow-insecure-demo-sign-in", "allowInsecureDemoSignIn"],
]);

/**
 * The options of a command line that is `svc api` with no other arguments
 * than `-c <path>`, `--config <path>`, `--config=<path>` (once) and its two
 * flags; `undefined` for any other, which commander reads (help, mistakes).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { apiArgs } from "./api_run.ts";
 * assert.deepEqual(apiArgs(["api", "-c", "svc.toml"]), { config: "svc.toml" });
 * assert.equal(apiArgs(["api", "--help"]), undefined);
 * assert.equal(apiArgs(["api", "-c", "a.toml", "--config=b.toml"]), undefined);
 * ```
 */
export function apiArgs(args: readonly string[]): ApiArgs | undefined {
  if (args[0] !== "api") return undefined;
  const options: ApiArgs = {};
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!;
    const flag = FLAGS.get(arg);
    let path: string | undefined;
    if (arg === "-c" || arg === "--config") path = args[++i];
    else if (arg.startsWith("--config=")) path = arg.slice("--config=".length);
    else if (flag && !options[flag]) {
      options[flag] = true;
      continue;
    } else return undefined;
    if (path === undefined || path === "" || path.startsWith("-") || options.config !== undefined) {
      return undefined;
    }
    options.config = path;
  }
  return options;
}

/** Serves the REST API of the configuration until the context's signal aborts. */
export async function runApi(options: ApiArgs, context: CommandContext): Promise<void> {
  const log = (line: string) => context.io.err(`${line}\n`);
  for (const warning of unknownEnvWarnings(context.env)) log(logLine("warn", warning));
  const config = await Config.fromFile(
    findConfigPath({ config: options.config, env: context.env }),
    { env: context.env },
  );
  if (options.allowInsecureDemoSignIn) config.api.allowInsecureDemoSignIn = true;
  // A database file's thread starts first, so that it loads its modules while the server's
  // load here: on two cores that is most of the thread's start-up off the wait for /health.
  const database = { localRoot: config.localRoot, base: config.base };
  if (parseDatabaseUrl(config.api.databaseUrl, database).kind === "file") startSpareThread();
  let api;
  try {
    // Loaded here, so that the other commands never load the server, and by a name Deno does not
    // read ahead (as COMMANDS in mod.ts), so that the thread starts before the server's modules
    // are prepared rather than after.
    const { serveApi }: typeof import("../server/serve.ts") = await import(SERVER);
    api = await serveApi(config, {
      ignoreUnavailableComponents: options.ignoreUnavailableComponents,
      log,
      signal: context.signal,
      env: context.env,
    });
  } finally {
    endSpareThread();
  }
  await api.finished;
}
