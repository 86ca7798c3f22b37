/**
 * The words for a mistake on the command line: an unknown command, an
 * unknown option, a missing value. Each is one sentence in svc's voice
 * (`Unknown command "chek" (did you mean "check"?): ...`), never commander's
 * own text or a stack trace.
 * @module
 */
import type { Command, CommanderError } from "commander";
import { quote } from "../components/core/errors.ts";
import { closest } from "../server/closest.ts";

/**
 * The sentence for the command a run names when svc has no such command, or
 * `undefined` when it names a known one (or none). The top-level options take
 * no values, so the first word that is not an option is the command; after
 * `help`, the next one is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unknownCommand } from "./mistakes.ts";
 * const sentence = unknownCommand(["chek"], ["check", "api", "help"]);
 * assert(sentence === 'Unknown command "chek" (did you mean "check"?): the commands are check, api and help');
 * assert(unknownCommand(["help", "api"], ["check", "api", "help"]) === undefined);
 * ```
 */
export function unknownCommand(
  args: readonly string[],
  names: readonly string[],
): string | undefined {
  const words = args.filter((arg) => !arg.startsWith("-"));
  const name = words[0] === "help" ? words[1] : words[0];
  if (name === undefined || names.includes(name)) return undefined;
  const suggestion = closest(name, names);
  return `Unknown command ${quote(name)}` +
    (suggestion ? ` (did you mean ${quote(suggestion)}?)` : "") +
    `: the commands are ${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** Options that people guess, and where the setting they want really is. */
const GUESSES: Readonly<Record<string, (command: string) => string | undefined>> = {
  "--port": (command) => setting(command, "port"),
  "--host": (command) => setting(command, "hostname"),
  "--hostname": (command) => setting(command, "hostname"),
};

/**
 * The sentence for an error commander raised while parsing `command`'s
 * arguments; `undefined` when commander only printed the help or the version.
 */
export function commanderMistake(error: CommanderError, command: Command): string | undefined {
  if (["commander.help", "commander.helpDisplayed", "commander.version"].includes(error.code)) {
    return undefined;
  }
  const name = commandName(command);
  const help = `see ${quote(`${name} --help`)}`;
  const flags = /'([^']+)'/.exec(error.message)?.[1] ?? "";
  switch (error.code) {
    case "commander.unknownOption": {
      const head = `Unknown option ${quote(flags)} for ${quote(name)}`;
      const longs = [...command.options.flatMap((o) => o.long ? [o.long] : []), "--help"];
      const suggestion = flags.startsWith("--")
        ? closest(flags, [...longs, ...Object.keys(GUESSES)])
        : undefined;
      if (suggestion && longs.includes(suggestion)) {
        return `${head} (did you mean ${quote(suggestion)}?): ${help}`;
      }
      const where = suggestion ? GUESSES[suggestion]!(command.name()) : undefined;
      return `${head}: ${where ?? help}`;
    }
    case "commander.optionMissingArgument": {
      const long = flags.split(/[ ,]+/).find((flag) => flag.startsWith("--")) ?? flags;
      // Not across another "<": from each "<" of a run, the search would read the rest again.
      const value = /<[^<>]+>/.exec(flags)?.[0] ?? "<value>";
      return `Option ${quote(long)} needs a value: ${quote(`${name} ${long} ${value}`)}`;
    }
    case "commander.excessArguments": {
      const extra = command.args[command.registeredArguments.length] ?? "";
      return `Unexpected argument ${quote(extra)} for ${
        quote(name)
      }: it takes options only, ${help}`;
    }
    default:
      return sentence(error.message);
  }
}

/** `svc api`, from the command and its parents. */
function commandName(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** Where a server's setting is, for `svc api` and `svc ui`. */
function setting(command: string, key: "port" | "hostname"): string | undefined {
  const table = command === "api" ? "api" : command === "ui" ? "ui" : undefined;
  if (!table) return undefined;
  const env = `SVC_${table.toUpperCase()}_${key.toUpperCase()}`;
  return `set the ${key === "port" ? "port" : "host"} with env ${env} or ` +
    `${quote(key)} in the [${table}] table of svc.toml`;
}

/** Commander's own words, in svc's voice: sentence case, double quotes, no final period. */
function sentence(message: string): string {
  const text = message.replace(/^error: /, "").replace(/'([^']*)'/g, '"$1"').replace(/\.$/, "");
  return text.charAt(0).toUpperCase() + text.slice(1);
}
