/**
 * `svc user add|remove|passwd|list|unlock`: the accounts of password sign-in
 * (`svc.deploy.PasswordAuthentication`), kept in the API's database. A
 * password is never an argument: it is asked without echo in a terminal, and
 * read from standard input otherwise (or with `--password-stdin`). A name is
 * kept in its one spelling (`server/auth/usernames.ts`).
 * @module
 */
import { Command, Option } from "commander";
import type * as Inquirer from "npm:@inquirer/prompts@8.8.0";
import { quote, SvcError } from "../components/core/errors.ts";
import { importPackage } from "../components/packages.ts";
import { hashPassword } from "../server/auth/password_hash.ts";
import { checkPasswordStrength } from "../server/auth/password_strength.ts";
import { foldUsername, normalizeUsername, usernameProblem } from "../server/auth/usernames.ts";
import { Config, findConfigPath } from "../server/config.ts";
import type { Database } from "../server/database/mod.ts";
import { type CommandContext, configOption } from "./context.ts";

/** The class that signs users in with these accounts. */
const PASSWORD_AUTHENTICATION = "svc.deploy.PasswordAuthentication";

/** Where `svc user` reads passwords; the defaults are the terminal and standard input. */
export interface PasswordInput {
  /** Whether standard input is a terminal, where a password is asked without echo. */
  isTerminal(): boolean;
  /** Asks for a password in the terminal without echoing it. */
  ask(message: string): Promise<string>;
  /** All of standard input, as text. */
  readAll(): Promise<string>;
}

/** Options of {@linkcode userCommand}. */
export interface UserCommandOptions {
  /** @default {the terminal and standard input} */
  input?: PasswordInput;
  /**
   * The clock of the accounts' times.
   * @default {Date.now}
   */
  now?: () => number;
}

/**
 * `svc user`: adds, removes and lists the accounts of password sign-in, and
 * sets their passwords.
 */
export function userCommand(context: CommandContext, options: UserCommandOptions = {}): Command {
  const input = options.input ?? terminalInput(context.signal);
  const now = () => Math.floor((options.now ?? Date.now)() / 1000);
  const passwordStdin = () =>
    new Option("--password-stdin", "read the password from standard input, for scripts");
  const withDatabase = async <T>(
    flags: { config?: string },
    work: (database: Database, config: Config) => Promise<T>,
  ): Promise<T> => {
    const config = await Config.fromFile(
      findConfigPath({ config: flags.config, env: context.env }),
      { env: context.env },
    );
    if (config.authentication !== PASSWORD_AUTHENTICATION) {
      context.io.err(
        `warning: the configuration signs in with ${quote(config.authentication)}, which does ` +
          `not use these accounts: set authentication = ${quote(PASSWORD_AUTHENTICATION)}\n`,
      );
    }
    // Loaded here, so that the other commands never load the native database client.
    const { openDatabase } = await import("../server/database/mod.ts");
    const database = await openDatabase(config.api.databaseUrl, {
      localRoot: config.localRoot,
      base: config.base,
      authToken: context.env?.SVC_API_DATABASE_AUTH_TOKEN,
    });
    try {
      // The accounts made before names were normalised get their one spelling first.
      const { normalizeAccountNames } = await import("../server/auth/account_names.ts");
      for (const note of await normalizeAccountNames(database)) context.io.err(`note: ${note}\n`);
      return await work(database, config);
    } finally {
      await database.close();
    }
  };
  /** The account a typed name names: the one of exactly that name, else of its one spelling. */
  const accountName = async (database: Database, typed: string): Promise<string> => {
    const { findAccount } = await import("../server/auth/account_names.ts");
    const found = (await findAccount(database, typed))?.user;
    // A name that cannot be normalised is looked for as it is, and found by no one.
    return found ?? (usernameProblem(typed) === undefined ? foldUsername(typed) : typed);
  };
  type Flags = { config?: string; passwordStdin?: boolean };

  const user = new Command("user")
    .description("manage the accounts of password sign-in (svc.deploy.PasswordAuthentication)");
  user.addCommand(
    new Command("add")
      .description("add a user, asking for its password")
      .argument("<name>", "the username")
      .addOption(configOption())
      .addOption(passwordStdin())
      .action(async (typed: string, flags: Flags) => {
        const name = normalizeUsername(typed);
        const password = await readPassword(input, name, flags.passwordStdin);
        const hash = await hashPassword(password);
        await withDatabase(flags, (database) => database.addAccount(name, hash, now()));
        const spelling = name === typed ? "" : ` (the one spelling of ${quote(typed)})`;
        context.io.out(`Added the user ${quote(name)}${spelling}\n`);
      }),
  );
  user.addCommand(
    new Command("passwd")
      .description("set a user's password, asking for it, and end the user's sessions")
      .argument("<name>", "the username")
      .addOption(configOption())
      .addOption(passwordStdin())
      .action(async (typed: string, flags: Flags) => {
        const password = await readPassword(input, typed, flags.passwordStdin);
        const hash = await hashPassword(password);
        const name = await withDatabase(flags, async (database) => {
          const name = await accountName(database, typed);
          await database.setPassword(name, hash, now());
          return name;
        });
        context.io.out(`Set the password of ${quote(name)}; its sessions have ended\n`);
      }),
  );
  user.addCommand(
    new Command("remove")
      .description("remove a user's account and end its sessions; its chats and documents stay")
      .argument("<name>", "the username")
      .addOption(configOption())
      .action(async (typed: string, flags: Flags) => {
        const name = await withDatabase(flags, async (database) => {
          const name = await accountName(database, typed);
          await database.removeAccount(name);
          return name;
        });
        context.io.out(
          `Removed the user ${quote(name)} and ended its sessions; its chats and documents stay ` +
            `until an account of that name is added again\n`,
        );
      }),
  );
  user.addCommand(
    new Command("unlock")
      .description("forget a user's failed logins, from every address, so that it can log in")
      .argument("<name>", "the username")
      .addOption(configOption())
      .action(async (typed: string, flags: Flags) => {
        const { loginKey } = await import("../server/auth/account_names.ts");
        const key = loginKey(typed) ?? typed;
        const cleared = await withDatabase(flags, (database) => database.clearLoginAttempts(key));
        context.io.out(
          `Forgot ${cleared} failed ${cleared === 1 ? "login" : "logins"} of ${quote(key)}: ` +
            "it can log in again from every address\n",
        );
      }),
  );
  user.addCommand(
    new Command("list")
      .description("list the users, when each was added and how many sessions each has open")
      .addOption(configOption())
      .action(async (flags: Flags) => {
        const accounts = await withDatabase(flags, (database) => database.listAccounts(now()));
        if (accounts.length === 0) {
          context.io.out('No users yet: add one with "svc user add NAME"\n');
          return;
        }
        const rows = [
          ["user", "added", "password set", "open sessions"],
          ...accounts.map((a) => [a.user, day(a.created), day(a.updated), String(a.sessions)]),
        ];
        const widths = rows[0]!.map((_, column) =>
          Math.max(...rows.map((row) => [...row[column]!].length))
        );
        for (const row of rows) {
          context.io.out(
            row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd() + "\n",
          );
        }
      }),
  );
  return user;
}

/**
 * The new password: asked twice without echo in a terminal, else the first
 * line of standard input.
 */
async function readPassword(
  input: PasswordInput,
  name: string,
  fromStdin: boolean | undefined,
): Promise<string> {
  let password: string;
  if (fromStdin || !input.isTerminal()) {
    password = (await input.readAll()).split(/\r?\n/)[0] ?? "";
  } else {
    password = await input.ask(`Password of ${quote(name)}:`);
    if (await input.ask("The same password again:") !== password) {
      throw new SvcError("The two passwords differ: nothing was changed");
    }
  }
  checkPasswordStrength(password, name);
  return password;
}

/** The day of a time in seconds, as `2026-01-31`. */
function day(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** The terminal, through the prompts of `@inquirer/prompts`, and standard input. */
function terminalInput(signal?: AbortSignal): PasswordInput {
  return {
    isTerminal: () => Deno.stdin.isTerminal(),
    async ask(message) {
      const inquirer = await importPackage<typeof Inquirer>("@inquirer/prompts");
      // No mask: nothing at all is echoed, not even the password's length.
      return await inquirer.password({ message }, { signal });
    },
    readAll: async () => await new Response(Deno.stdin.readable).text(),
  };
}
