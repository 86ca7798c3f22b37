/**
 * `svc init`: a wizard that writes a configuration file.
 * @module
 */
import { isAbsolute, relative, resolve } from "node:path";
import { Command, Option } from "commander";
import { quote, SvcError } from "../components/core/errors.ts";
import { Config } from "../server/config.ts";
import {
  builtinClassPaths,
  type ComponentFamily,
  type ComponentStatus,
  componentStatus,
  describeStatus,
  FAMILIES,
  mark,
} from "./check.ts";
import type { CommandContext } from "./context.ts";
import { svcCommand } from "./invocation.ts";
import type * as Inquirer from "npm:@inquirer/prompts@8.8.0";
import { importPackage } from "../components/packages.ts";

/** One answer of a `select` or `checkbox` question. */
export interface Choice<T> {
  value: T;
  name: string;
  description?: string;
  /** Whether a checkbox starts checked. */
  checked?: boolean;
}

/**
 * The questions `svc init` asks, shaped like `@inquirer/prompts` so that it is
 * the default, and tests can answer without a terminal.
 */
export interface Prompts {
  select<T>(question: { message: string; choices: Choice<T>[]; default: T }): Promise<T>;
  checkbox<T>(question: {
    message: string;
    choices: Choice<T>[];
    /** `true`, or the words of what is wrong with the chosen ones. */
    validate?: (chosen: readonly { value: T }[]) => true | string;
  }): Promise<T[]>;
  input(question: {
    message: string;
    default: string;
    /** `true`, or the words of what is wrong with the answer. */
    validate?: (answer: string) => true | string;
  }): Promise<string>;
  confirm(question: { message: string; default: boolean }): Promise<boolean>;
}

/** Options of {@linkcode initCommand}. */
export interface InitCommandOptions {
  /**
   * Asks the questions.
   * @default {the prompts of `@inquirer/prompts`, in the terminal}
   */
  prompts?: Prompts;
  /**
   * Whether questions can be asked; without `--yes`, `svc init` refuses to run otherwise.
   * @default {true when `prompts` is given or stdin is a terminal}
   */
  interactive?: boolean;
  /**
   * The folder a relative `--output` and relative answers are resolved against.
   * @default {Deno.cwd()}
   */
  cwd?: string;
  /**
   * The command that runs svc here, for the closing hint: `svc` for the
   * compiled binary, `deno task svc` from a checkout.
   * @default {svcCommand()}
   */
  svc?: string;
}

type Mode = "defaults" | "builtin" | "common";

/**
 * `svc init`: asks what to set up and writes a configuration file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { initCommand } from "./init.ts";
 * const cwd = await Deno.makeTempDir();
 * const io = { out: () => {}, err: () => {} };
 * await initCommand({ io, exit: () => {}, env: {} }, { cwd })
 *   .parseAsync(["--yes"], { from: "user" });
 * assert((await Deno.stat(`${cwd}/svc.toml`)).isFile);
 * ```
 */
export function initCommand(context: CommandContext, options: InitCommandOptions = {}): Command {
  return new Command("init")
    .description("write a configuration file, asking what to set up")
    .addOption(new Option("-o, --output <path>", "the file to write").default("./svc.toml"))
    // Every subcommand takes -c; here it names the file to write, like --output.
    .addOption(new Option("-c, --config <path>").hideHelp())
    .option("-f, --force", "overwrite the file if it exists")
    .option("-y, --yes", "ask nothing: write the embedded defaults")
    .action(async (flags: { output: string; config?: string; force?: boolean; yes?: boolean }) => {
      const cwd = resolve(options.cwd ?? Deno.cwd());
      const { io } = context;
      let path = resolve(cwd, flags.config ?? flags.output);
      let force = flags.force ?? false;
      let config: Config;
      if (flags.yes) {
        // Config.toFile refuses an existing file without force, naming it and --force.
        config = Config.from({}, { env: {}, base: cwd });
      } else {
        const interactive = options.interactive ??
          (options.prompts !== undefined || Deno.stdin.isTerminal());
        if (!interactive) {
          throw new SvcError(
            '"svc init" asks questions and needs a terminal; pass --yes to write the embedded defaults',
          );
        }
        const prompts = options.prompts ?? await inquirerPrompts(context.signal);
        try {
          if (!force && exists(path)) {
            force = await prompts.confirm({
              message: `${show(path, cwd)} exists already. Overwrite it?`,
              default: false,
            });
            if (!force) path = await askNewPath(prompts, cwd, path);
          }
          config = await wizard(prompts, { cwd, out: io.out });
        } catch (error) {
          if (!isCancel(error)) throw error;
          io.err("Stopped: nothing was written\n");
          // The exit code of a program stopped by Ctrl+C.
          context.exit(130);
          return;
        }
      }
      await config.toFile(path, { force, minimal: true });
      const file = shellWord(show(path, cwd));
      const svc = options.svc ?? svcCommand({ env: context.env });
      io.out(
        `Wrote ${show(path, cwd)}\n` +
          `Next: "${svc} check -c ${file}" to see what the components need, ` +
          `then "${svc} api -c ${file}" to start the REST API\n`,
      );
    });
}

/** Asks for a file that does not exist yet, again and again until it gets one. */
async function askNewPath(prompts: Prompts, cwd: string, taken: string): Promise<string> {
  const validate = (answer: string) =>
    answer.trim() === ""
      ? "Give a path"
      : exists(resolve(cwd, answer.trim()))
      ? `${show(resolve(cwd, answer.trim()), cwd)} exists already`
      : true;
  for (;;) {
    const answer = await prompts.input({
      message: "Which file should svc init write instead?",
      default: show(freePath(taken), cwd),
      validate,
    });
    if (validate(answer) === true) return resolve(cwd, answer.trim());
  }
}

/** Asks what to set up and makes the configuration from the answers. */
async function wizard(
  prompts: Prompts,
  { cwd, out }: { cwd: string; out: (text: string) => void },
): Promise<Config> {
  out("This writes a configuration for svc. Press Enter to take the suggested answer.\n");
  const mode = await prompts.select<Mode>({
    message: "What do you want to set up?",
    choices: [
      {
        value: "defaults",
        name: "The embedded defaults",
        description: "LibSQL and the Extractive assistant: answers from your documents with no " +
          "keys, packages or servers",
      },
      {
        value: "builtin",
        name: "The built-in components",
        description: "Choose source storages and assistants; some need keys, packages or servers",
      },
      {
        value: "common",
        name: "The built-in components and the common options",
        description: "Also choose where svc keeps its files, the hosts, ports and URLs",
      },
    ],
    default: "defaults",
  });
  if (mode === "defaults") return Config.from({}, { env: {}, base: cwd });

  const values: Record<string, unknown> = {};
  const needy: ComponentStatus[] = [];
  for (const family of FAMILIES) {
    const { classPaths, unavailable } = await chooseComponents(prompts, family);
    values[family.key] = classPaths;
    needy.push(...unavailable);
  }
  if (needy.length > 0) {
    out("\nThese chosen components need more before they can run:\n");
    for (const component of needy) {
      out(`  ${component.name}\n`);
      for (const status of component.requirements.filter((s) => !s.met)) {
        out(`    ${mark(false)} ${describeStatus(status)}\n`);
      }
    }
    out('Set them up before you start svc; "svc check" shows what is still missing\n\n');
  }
  if (mode === "common") Object.assign(values, await askCommonOptions(prompts, cwd));
  return Config.from(values, { env: {}, base: cwd });
}

/** A checkbox question for one family; every built-in is listed, the available ones checked. */
async function chooseComponents(
  prompts: Prompts,
  family: ComponentFamily,
): Promise<{ classPaths: string[]; unavailable: ComponentStatus[] }> {
  // Packages are loaded only for the components chosen: a first load downloads them.
  const components = await Promise.all(
    builtinClassPaths(family).map((classPath) =>
      componentStatus(classPath, family, { loadPackages: false })
    ),
  );
  // The embedded defaults first, in their order, so that they are the first a chat offers.
  const defaults = family.selected(Config.from({}, { env: {} }));
  const rank = (classPath: string) => {
    const at = defaults.indexOf(classPath);
    return at < 0 ? defaults.length : at;
  };
  components.sort((a, b) => rank(a.classPath) - rank(b.classPath) || a.name.localeCompare(b.name));
  const classPaths = await prompts.checkbox({
    message: `Which ${family.noun}s do you want?`,
    choices: components.map((component) => ({
      value: component.classPath,
      name: component.available === false
        ? `${component.name} (needs setup)`
        : component.available === undefined
        ? `${component.name} (loads npm packages)`
        : component.name,
      description: component.classPath,
      checked: component.available === true,
    })),
    validate: (selected) => selected.length > 0 || `Choose at least one ${family.noun}`,
  });
  if (classPaths.length === 0) {
    throw new SvcError(`Choose at least one ${family.noun}`);
  }
  const chosen = await Promise.all(classPaths.map((classPath) => {
    const status = components.find((component) => component.classPath === classPath)!;
    return status.available === undefined ? componentStatus(classPath, family) : status;
  }));
  return { classPaths, unavailable: chosen.filter((component) => !component.available) };
}

/** The questions of the common options, each answer checked as the configuration would be. */
async function askCommonOptions(prompts: Prompts, cwd: string): Promise<Record<string, unknown>> {
  const defaults = Config.from({}, { env: {}, base: cwd });
  // Each answer is checked by the configuration itself, so the wizard cannot write a file
  // that svc would refuse.
  const problem = (values: Record<string, unknown>) => {
    try {
      Config.from(values, { env: {}, base: cwd });
      return true;
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      return error.message.split("\n").slice(1).map((line) => line.replace(/^- /, "")).join("; ");
    }
  };
  const port = (table: string) => (answer: string) =>
    /^\s*[0-9]+\s*$/.test(answer)
      ? problem({ [table]: { port: Number(answer) } })
      : "Give a port number from 1 to 65535";
  const ask = async (
    message: string,
    fallback: string,
    validate: (answer: string) => true | string,
  ) => (await prompts.input({ message, default: fallback, validate })).trim() || fallback;

  const localRoot = await ask(
    "Where should svc keep its files?",
    defaults.localRoot,
    (answer) => problem({ local_root: answer.trim() || defaults.localRoot }),
  );
  const api = {
    hostname: await ask(
      "Which host should the REST API listen on?",
      defaults.api.hostname,
      (answer) => problem({ api: { hostname: answer.trim() || defaults.api.hostname } }),
    ),
    port: Number(
      await ask(
        "Which port should the REST API listen on?",
        String(defaults.api.port),
        port("api"),
      ),
    ),
  };
  const ui = {
    hostname: await ask(
      "Which host should the web UI listen on?",
      defaults.ui.hostname,
      (answer) => problem({ ui: { hostname: answer.trim() || defaults.ui.hostname } }),
    ),
    port: Number(
      await ask("Which port should the web UI listen on?", String(defaults.ui.port), port("ui")),
    ),
  };
  // The defaults of the URLs follow the answers so far; a browser cannot open "0.0.0.0".
  const derived = Config.from({
    local_root: localRoot,
    api: { ...api, hostname: reachable(api.hostname) },
    ui: { ...ui, hostname: reachable(ui.hostname) },
  }, { env: {}, base: cwd });
  const databaseUrl = await ask(
    "Which database should the REST API use?",
    derived.api.databaseUrl,
    (answer) => problem({ api: { database_url: answer.trim() || derived.api.databaseUrl } }),
  );
  const apiUrl = await ask(
    "At which URL does the web UI reach the REST API?",
    derived.api.url,
    (answer) => problem({ api: { url: answer.trim() || derived.api.url } }),
  );
  const uiUrl = await ask(
    "At which URL do users open the web UI?",
    derived.ui.origins[0]!,
    (answer) => problem({ ui: { origins: [answer.trim() || derived.ui.origins[0]] } }),
  );
  return {
    local_root: localRoot,
    api: { ...api, database_url: databaseUrl, url: apiUrl, origins: [uiUrl] },
    ui: { ...ui, origins: [uiUrl] },
  };
}

/** A host to reach a server at: the server's own, unless it listens on every address. */
function reachable(hostname: string): string {
  return hostname === "0.0.0.0" || hostname === "::" ? "localhost" : hostname;
}

/** The questions of `@inquirer/prompts`, loaded only when `svc init` asks. */
async function inquirerPrompts(signal?: AbortSignal): Promise<Prompts> {
  const inquirer = await importPackage<typeof Inquirer>("@inquirer/prompts");
  const context = { signal };
  return {
    select: (question) => inquirer.select(question, context),
    checkbox: (question) => inquirer.checkbox(question, context),
    input: (question) => inquirer.input(question, context),
    confirm: (question) => inquirer.confirm(question, context),
  };
}

/** Whether the user stopped the questions (Ctrl+C, or the signal). */
function isCancel(error: unknown): boolean {
  return error instanceof Error &&
    (error.name === "ExitPromptError" || error.name === "AbortPromptError");
}

/** `svc-2.toml`, `svc-3.toml`, ...: the first that does not exist. */
function freePath(path: string): string {
  const dot = path.lastIndexOf(".");
  const [stem, suffix] = dot > path.lastIndexOf("/") ? [path.slice(0, dot), path.slice(dot)] : [
    path,
    "",
  ];
  for (let n = 2;; n++) {
    const candidate = `${stem}-${n}${suffix}`;
    if (!exists(candidate)) return candidate;
  }
}

/** A path as the user would type it: relative to cwd when inside it. */
function show(path: string, cwd: string): string {
  const inside = relative(cwd, path);
  return inside && !inside.startsWith("..") && !isAbsolute(inside) ? inside : path;
}

/** A path as one word of a shell command. */
function shellWord(text: string): string {
  return /^[\w./@:+-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw new SvcError(`Cannot use ${quote(path)}: ${(error as Error).message}`, { cause: error });
  }
}
