/**
 * Every command of `svc`, read by commander: the subcommands, their options,
 * their help and the sentences for mistakes. `cli/mod.ts` loads it for every
 * command line but the usual `svc api` one.
 * @module
 */
import { Command, CommanderError } from "commander";
import { apiCommand } from "./api.ts";
import { checkCommand } from "./check.ts";
import { evalCommand } from "./eval.ts";
import { exportLabelledCommand } from "./export_labelled.ts";
import { initCommand } from "./init.ts";
import { mcpCommand } from "./mcp.ts";
import { commanderMistake, unknownCommand } from "./mistakes.ts";
import { uiCommand } from "./ui.ts";
import { userCommand } from "./user.ts";
import { VERSION_LINE } from "./version_line.ts";
import type { CommandContext } from "./context.ts";

/** Each subcommand, made for a context. */
const COMMANDS: ((context: CommandContext) => Command)[] = [
  initCommand,
  checkCommand,
  apiCommand,
  uiCommand,
  mcpCommand,
  userCommand,
  evalCommand,
  exportLabelledCommand,
];

/**
 * Runs the command line with commander and returns the exit code; a mistake
 * on it is one sentence on the context's `io.err` and its exit code. An
 * `SvcError` of a command is thrown to the caller.
 */
export async function runCommands(
  args: readonly string[],
  context: CommandContext,
): Promise<number> {
  const { io } = context;
  let exitCode = 0;
  const counted: CommandContext = { ...context, exit: (code) => exitCode = code };
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
  for (const make of COMMANDS) program.addCommand(configure(make(counted)));
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
    throw error;
  }
}
