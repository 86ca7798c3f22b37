/**
 * The `svc` command line: commands are data plus `run(args, io)`, so tests
 * call them without a process. The usual `svc api` line is read here and
 * served without loading commander (`api_run.ts`); every other line goes to
 * commander (`commands.ts`).
 * @module
 */
import { SvcError } from "../components/core/errors.ts";
import { addEnvironmentSecrets, redact } from "../components/core/secrets.ts";
import { apiArgs, runApi } from "./api_run.ts";
import type { CommandContext, Io } from "./context.ts";
import { readEnv } from "../server/settings.ts";

export type { CommandContext, Io } from "./context.ts";

/** The console as an {@linkcode Io}. */
export const consoleIo: Io = {
  out: (text) => Deno.stdout.writeSync(new TextEncoder().encode(text)),
  err: (text) => Deno.stderr.writeSync(new TextEncoder().encode(text)),
};

/**
 * The commands read by commander, imported by a name Deno does not read ahead
 * of time: Deno prepares every module a literal import names, dynamic ones
 * included, before the importing module runs, which would cost every `svc
 * api` the modules of every other command. `deploy/compile.ts` includes it in
 * the binary.
 */
export const COMMANDS = "./commands.ts";

const REMOVED: Readonly<Record<string, string>> = {
  config: "`svc config` was replaced by `svc init` (write a configuration) and `svc check`",
  worker: "`svc worker` was removed: answers are computed by `svc api` itself",
  "--start-worker":
    "`svc api --start-worker` was removed: answers are computed by `svc api` itself",
};

/** Options of {@linkcode run}. */
export interface RunOptions {
  /**
   * The environment, for tests.
   * @default {readEnv()}
   */
  env?: Record<string, string | undefined>;
  /** Ends long-running commands. */
  signal?: AbortSignal;
}

/**
 * Runs the command line and returns the exit code. A mistake (an unknown
 * command or option, a missing value, an invalid configuration) is one
 * sentence on `io.err` and exit code 1.
 */
export async function run(
  args: readonly string[],
  io: Io = consoleIo,
  options: RunOptions = {},
): Promise<number> {
  // The process's own environment, not one a test passes: what its commands may show.
  if (options.env === undefined) addEnvironmentSecrets();
  const removed = args.map((arg) => REMOVED[arg]).find(Boolean);
  if (removed && (args[0] !== "api" || args.includes("--start-worker"))) {
    io.err(`error: ${removed}\n`);
    return 1;
  }
  let exitCode = 0;
  const context: CommandContext = {
    io,
    exit: (code) => exitCode = code,
    // Read once, here: the commands and the servers they start are given it.
    env: options.env ?? readEnv(),
    signal: options.signal,
  };
  try {
    const api = apiArgs(args);
    if (api === undefined) {
      const { runCommands }: typeof import("./commands.ts") = await import(COMMANDS);
      return await runCommands(args, context);
    }
    await runApi(api, context);
    return exitCode;
  } catch (error) {
    if (error instanceof SvcError) {
      io.err(`error: ${redact(error.message)}\n`);
      return 1;
    }
    throw error;
  }
}
