/**
 * The `svc` command line: commands are data plus `run(args, io)`, so tests
 * call them without a process.
 * @module
 */
import { Command, CommanderError } from "commander";
import { SvcError } from "../components/core/errors.ts";
import { redactUrls } from "../components/core/redact_url.ts";
import { apiCommand } from "./api.ts";
import { checkCommand } from "./check.ts";
import { evalCommand } from "./eval.ts";
import { initCommand } from "./init.ts";
import { mcpCommand } from "./mcp.ts";
import { commanderMistake, unknownCommand } from "./mistakes.ts";
import { uiCommand } from "./ui.ts";
import { userCommand } from "./user.ts";
import { VERSION_LINE } from "./version_line.ts";
import type { CommandContext, Io } from "./context.ts";

export type { CommandContext, Io } from "./context.ts";

/** The console as an {@linkcode Io}. */
export const consoleIo: Io = {
  out: (text) => Deno.stdout.writeSync(new TextEncoder().encode(text)),
  err: (text) => Deno.stderr.writeSync(new TextEncoder().encode(text)),
};

/** Each subcommand, made for a context. */
const COMMANDS: ((context: CommandContext) => Command)[] = [
  initCommand,
  checkCommand,
  apiCommand,
  uiCommand,
  mcpCommand,
  userCommand,
  evalCommand,
];

const REMOVED: Readonly<Record<string, string>> = {
  config: "`svc config` was replaced by `svc init` (write a configuration) and `svc check`",
  worker: "`svc worker` was removed: answers are computed by `svc api` itself",
  "--start-worker":
    "`svc api --start-worker` was removed: answers are computed by `svc api` itself",
};

/** Options of {@linkcode run}. */
export interface RunOptions {
  /** The environment, for tests. */
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
  const removed = args.map((arg) => REMOVED[arg]).find(Boolean);
  if (removed && (args[0] !== "api" || args.includes("--start-worker"))) {
    io.err(`error: ${removed}\n`);
    return 1;
  }
  let exitCode = 0;
  const context: CommandContext = {
    io,
    exit: (code) => exitCode = code,
    env: options.env,
    signal: options.signal,
  };
  // Commander's own error text is replaced by a sentence (see mistakes.ts), so it writes none.
  const output = { writeOut: io.out, writeErr: io.err, outputError: () => {} };
  // The subcommand whose arguments commander refused, to name it in the sentence.
  let failing: Command | undefined;
  const program = new Command("svc")
    .description("A self-hosted retrieval-augmented generation service")
    .version(VERSION_LINE, "-V, --version", "print the version")
    .helpOption("-h, --help", "show this help")
    .helpCommand("help [command]", "show the help of a command")
    .exitOverride()
    .configureOutput(output)
    .action(() => {
      program.outputHelp();
    });
  // A command's own subcommands (`svc user add`) speak the same way.
  const configure = (command: Command): Command => {
    command.helpOption("-h, --help", "show this help")
      .exitOverride((error) => {
        failing = command;
        throw error;
      })
      .configureOutput(output);
    for (const sub of command.commands) configure(sub);
    return command;
  };
  for (const make of COMMANDS) program.addCommand(configure(make(context)));
  const unknown = unknownCommand(args, [...program.commands.map((c) => c.name()), "help"]);
  if (unknown) {
    io.err(`error: ${unknown}\n`);
    return 1;
  }
  try {
    await program.parseAsync([...args], { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      const mistake = commanderMistake(error, failing ?? program);
      if (mistake) io.err(`error: ${mistake}\n`);
      return error.exitCode;
    }
    if (error instanceof SvcError) {
      io.err(`error: ${redactUrls(error.message)}\n`);
      return 1;
    }
    throw error;
  }
}
