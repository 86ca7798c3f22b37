import assert from "node:assert/strict";
import { Command, CommanderError } from "commander";
import { commanderMistake, unknownCommand } from "../../cli/mistakes.ts";

const NAMES = ["init", "check", "api", "ui", "help"];

Deno.test("unknownCommand() looks at the first word that is not an option, or the one after help", () => {
  assert.equal(unknownCommand([], NAMES), undefined);
  assert.equal(unknownCommand(["--version"], NAMES), undefined);
  assert.equal(unknownCommand(["api", "--prot", "1"], NAMES), undefined);
  assert.equal(unknownCommand(["help"], NAMES), undefined);
  assert.match(
    unknownCommand(["-h", "apj"], NAMES)!,
    /^Unknown command "apj" \(did you mean "api"\?\)/,
  );
  assert.match(
    unknownCommand(["help", "inti"], NAMES)!,
    /^Unknown command "inti" \(did you mean "init"\?\)/,
  );
});

Deno.test("commanderMistake() says nothing when commander only showed the help or the version", () => {
  const command = new Command("svc");
  for (const code of ["commander.help", "commander.helpDisplayed", "commander.version"]) {
    assert.equal(commanderMistake(new CommanderError(0, code, "(outputHelp)"), command), undefined);
  }
});

Deno.test("commanderMistake() puts any other error of commander in svc's voice", () => {
  const parent = new Command("svc");
  const command = parent.command("check");
  const error = new CommanderError(
    1,
    "commander.conflictingOption",
    "error: option '--a' cannot be used with option '--b'.",
  );
  assert.equal(commanderMistake(error, command), 'Option "--a" cannot be used with option "--b"');
});
