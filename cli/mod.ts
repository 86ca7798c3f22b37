/**
 * The `svc` command line: commands are data plus `run(args, io)`, so tests
 * call them without a process.
 * @module
 */
import { Command, CommanderError } from "commander";
import { VERSION } from "../components/version.ts";

/** Where a command writes. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

/** The console as an {@linkcode Io}. */
export const consoleIo: Io = {
  out: (text) => Deno.stdout.writeSync(new TextEncoder().encode(text)),
  err: (text) => Deno.stderr.writeSync(new TextEncoder().encode(text)),
};

const REMOVED: Readonly<Record<string, string>> = {
  config: "`svc config` was replaced by `svc init` (write a configuration) and `svc check`",
  worker: "`svc worker` was removed: answers are computed by `svc api` itself",
};

/** Runs the command line and returns the exit code. */
export async function run(args: readonly string[], io: Io = consoleIo): Promise<number> {
  const removed = args[0] === undefined ? undefined : REMOVED[args[0]];
  if (removed) {
    io.err(`error: ${removed}\n`);
    return 1;
  }
  const program = new Command("svc")
    .description("A self-hosted retrieval-augmented generation service")
    .version(`svc ${VERSION}`, "-V, --version", "print the version")
    .helpOption("-h, --help", "show this help")
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .action(() => {
      program.outputHelp();
    });
  try {
    await program.parseAsync([...args], { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    throw error;
  }
}
