/**
 * `svc check`: which components can run here, and what the selected ones
 * still need.
 * @module
 */
import { Command } from "commander";
import {
  Assistant,
  type Component,
  type ComponentClass,
  displayNameOf,
  SourceStorage,
} from "../components/core/component.ts";
import { quote } from "../components/core/errors.ts";
import type { Family } from "../components/core/component.ts";
import type { Requirement } from "../components/core/requirements.ts";
import { supportedSuffixes } from "../components/core/document.ts";
import { OPTIONAL_PACKAGES } from "../components/packages.ts";
import { redactUrl } from "../components/core/redact_url.ts";
import { offersOllamaModels, ollamaModels, ollamaUrl } from "../components/served_models.ts";
import { embedderFromEnv } from "../components/embeddings/mod.ts";
import { SERVER_CLASS_PATHS } from "../server/auth/registry.ts";
import { exposedDemo } from "../server/auth/exposure.ts";
import { Config, findConfigPath } from "../server/config.ts";
import { unknownEnvWarnings } from "../server/config_env.ts";
import { shareApiDatabase } from "../server/database/url.ts";
import { type CommandContext, configOption } from "./context.ts";

/** A family of components, as `svc check` and `svc init` show it. */
export interface ComponentFamily {
  /** Its key in the configuration file. */
  key: "source_storages" | "assistants";
  /** The title of its table: `Source storages`. */
  title: string;
  /** One of them, in a sentence: `source storage`. */
  noun: string;
  /** The prefix of its built-in class paths: `svc.source_storages.`. */
  prefix: string;
  /** The class every member extends. */
  base: Family<Component>;
  /** The class paths a configuration selects. */
  selected(config: Config): readonly string[];
}

/** The families of components, in the order a configuration lists them. */
export const FAMILIES: readonly ComponentFamily[] = [
  {
    key: "source_storages",
    title: "Source storages",
    noun: "source storage",
    prefix: "svc.source_storages.",
    base: SourceStorage,
    selected: (config) => config.sourceStorages,
  },
  {
    key: "assistants",
    title: "Assistants",
    noun: "assistant",
    prefix: "svc.assistants.",
    base: Assistant,
    selected: (config) => config.assistants,
  },
];

/** A requirement and whether it is met now; `undefined` when it was not checked. */
export interface RequirementStatus {
  requirement: Requirement;
  met: boolean | undefined;
}

/** One component as `svc check` reports it. */
export interface ComponentStatus {
  classPath: string;
  /** The display name; the export name (or the class path) when the class cannot be used. */
  name: string;
  /** Whether it can run; `undefined` when that rests on packages that were not loaded. */
  available: boolean | undefined;
  requirements: RequirementStatus[];
  /** Why the class cannot be used at all: it does not load, or is of another family. */
  problem?: string;
}

/** The class paths of a family's built-in components, read at run time from the registry. */
export function builtinClassPaths(family: ComponentFamily): string[] {
  return SERVER_CLASS_PATHS.classPaths().filter((classPath) => classPath.startsWith(family.prefix));
}

/** Options of {@linkcode componentStatus}. */
export interface ComponentStatusOptions {
  /**
   * The folder `./module.ts#Export` class paths are relative to.
   * @default {Deno.cwd()}
   */
  base?: string;
  /**
   * Whether to load the optional npm packages it needs (`components/packages.ts`) to tell
   * whether they load: the first load downloads them, which only a component that is used should
   * cost. svc's own packages are there already and are always loaded.
   * @default {true}
   */
  loadPackages?: boolean;
}

/**
 * Loads a component class and checks its requirements; a class that cannot be
 * loaded or is of another family is reported as unavailable, with the reason.
 */
export async function componentStatus(
  classPath: string,
  family: ComponentFamily,
  options: ComponentStatusOptions = {},
): Promise<ComponentStatus> {
  const unusable = (problem: string): ComponentStatus => ({
    classPath,
    name: classPath.includes("#") ? classPath.slice(classPath.lastIndexOf("#") + 1) : classPath,
    available: false,
    requirements: [],
    problem,
  });
  let value: unknown;
  try {
    value = await SERVER_CLASS_PATHS.load(classPath, { base: options.base });
  } catch (error) {
    return unusable((error as Error).message);
  }
  if (typeof value !== "function" || !(value.prototype instanceof family.base)) {
    return unusable(`${quote(classPath)} is not a subclass of ${family.base.name}`);
  }
  const component = value as ComponentClass;
  const name = displayNameOf(component);
  // A requirement that throws while being checked is as good as unmet.
  const met = (promise: () => Promise<boolean>) => promise().then(Boolean, () => false);
  const checked = (requirement: Requirement) =>
    options.loadPackages !== false || !isOptionalPackage(requirement);
  const requirements = await Promise.all(
    component.requirements.map(async (requirement) => ({
      requirement,
      met: checked(requirement) ? await met(() => requirement.isAvailable()) : undefined,
    })),
  );
  if (requirements.some((status) => status.met === false)) {
    return { classPath, name, available: false, requirements };
  }
  if (requirements.some((status) => status.met === undefined)) {
    return { classPath, name, available: undefined, requirements };
  }
  return { classPath, name, available: await met(() => component.isAvailable()), requirements };
}

/** Whether a requirement is one of the npm packages svc downloads only when they are used. */
function isOptionalPackage(requirement: Requirement): boolean {
  return requirement.kind === "package" && Object.hasOwn(OPTIONAL_PACKAGES, requirement.name);
}

/**
 * A requirement and its state in words.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeStatus } from "./check.ts";
 * import { EnvVarRequirement } from "../components/core/requirements.ts";
 * const requirement = new EnvVarRequirement("OPENAI_API_KEY");
 * const text = describeStatus({ requirement, met: false });
 * assert(text === "environment variable OPENAI_API_KEY is not set");
 * ```
 */
export function describeStatus({ requirement, met }: RequirementStatus): string {
  if (met === undefined) return `${requirement.kind} ${requirement.name} was not checked`;
  switch (requirement.kind) {
    case "env":
      return `environment variable ${requirement.name} ${met ? "is set" : "is not set"}`;
    case "package":
      return `package ${requirement.name} ${met ? "loads" : "does not load"}`;
    case "server":
      return `server ${requirement.name} ${met ? "answers" : "does not answer"}`;
    case "model":
      return `model ${requirement.name} ${met ? "is served" : "is not served"}`;
    default:
      // A user's component may bring kinds of its own.
      return `${(requirement as Requirement).kind} ${(requirement as Requirement).name} ${
        met ? "is there" : "is missing"
      }`;
  }
}

/** A check or a cross; a dot for what was not checked. */
export function mark(ok: boolean | undefined): string {
  return ok === undefined ? "·" : ok ? "✓" : "✗";
}

/** Options of {@linkcode checkCommand}. */
export interface CheckCommandOptions {
  /**
   * The folder `./svc.toml` and a relative `--config` are looked up in.
   * @default {Deno.cwd()}
   */
  cwd?: string;
}

/**
 * `svc check`: a table per component family; exit 1 when a selected component cannot run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkCommand } from "./check.ts";
 * import { Config } from "../server/config.ts";
 * const file = `${await Deno.makeTempDir()}/svc.toml`;
 * await Config.from({}, { env: {} }).toFile(file);
 * let code = -1;
 * let text = "";
 * const io = { out: (t: string) => text += t, err: (t: string) => text += t };
 * await checkCommand({ io, exit: (c) => code = c, env: {} })
 *   .parseAsync(["-c", file], { from: "user" });
 * assert(code === 0 && text.includes("All selected components are available"));
 * ```
 */
export function checkCommand(context: CommandContext, options: CheckCommandOptions = {}): Command {
  return new Command("check")
    .description("show which components can run here, and what the selected ones need")
    .addOption(configOption())
    .action(async (flags: { config?: string }) => {
      for (const warning of unknownEnvWarnings(context.env)) {
        context.io.err(`warning: ${warning}\n`);
      }
      const path = findConfigPath({ config: flags.config, env: context.env, cwd: options.cwd });
      const config = await Config.fromFile(path, { env: context.env });
      const { text, unavailable, embedderProblem } = await report(config, context.env);
      const signIn = await signInProblem(config);
      context.io.out(`Configuration ${quote(path)}\n\n${text}`);
      context.io.out(
        `Sign-in: ${config.authentication}${signIn ? `\n  ${mark(false)} ${signIn}` : ""}\n\n`,
      );
      if (unavailable.length === 0) {
        context.io.out("All selected components are available\n");
      } else {
        const count = unavailable.length === 1
          ? "1 selected component is"
          : `${unavailable.length} selected components are`;
        context.io.out(`${count} not available: ${unavailable.map(quote).join(", ")}\n`);
      }
      if (signIn) context.io.out("The sign-in cannot be served as configured\n");
      if (embedderProblem) context.io.out("The embedder cannot run as configured\n");
      context.exit(unavailable.length === 0 && !signIn && !embedderProblem ? 0 : 1);
    });
}

/**
 * The tables of a configuration, the names of its selected components that cannot run, and why
 * the embedder cannot, if it cannot.
 */
async function report(
  config: Config,
  env: CommandContext["env"],
): Promise<{ text: string; unavailable: string[]; embedderProblem?: string }> {
  // The Postgres storage's requirements name the API's database when it is PostgreSQL.
  shareApiDatabase(config.api.databaseUrl);
  const families = await Promise.all(FAMILIES.map(async (family) => {
    const selected = family.selected(config);
    const builtins = builtinClassPaths(family);
    // The packages of a built-in that is not selected are not loaded: loading them the first time
    // downloads them, hundreds of megabytes for components nobody chose.
    const status = (path: string) =>
      componentStatus(path, family, { base: config.base, loadPackages: selected.includes(path) });
    const [builtin, own] = await Promise.all([
      Promise.all(builtins.map(status)),
      Promise.all(
        selected.filter((path) => !builtins.includes(path)).map((path) =>
          componentStatus(path, family, { base: config.base })
        ),
      ),
    ]);
    // Built-ins by name, then the user's own in the order the configuration lists them.
    builtin.sort((a, b) => a.name.localeCompare(b.name));
    return { family, selected, components: [...builtin, ...own] };
  }));

  const header = ["", "name", "class path", "selected"];
  const cells = families.map(({ selected, components }) =>
    components.map((c) => [
      mark(c.available),
      c.name,
      c.classPath,
      selected.includes(c.classPath) ? "yes" : "",
    ])
  );
  // One set of widths for every table, so that they line up under each other.
  const widths = header.map((title, column) =>
    Math.max(width(title), ...cells.flat().map((row) => width(row[column]!)))
  );
  const line = (row: readonly string[]) =>
    `  ${row.map((cell, column) => pad(cell, widths[column]!)).join("  ")}`.trimEnd() + "\n";
  const detail = (text: string) =>
    text.split("\n").map((part) => `${" ".repeat(2 + widths[0]! + 4)}${part}\n`).join("");

  let text = "";
  const unavailable: string[] = [];
  families.forEach(({ family, selected, components }, index) => {
    text += `${family.title}\n${line(header)}`;
    components.forEach((component, row) => {
      text += line(cells[index]![row]!);
      if (component.problem) text += detail(component.problem);
      if (!selected.includes(component.classPath)) return;
      if (!component.available) unavailable.push(component.name);
      if (!component.problem && component.requirements.length === 0) {
        text += detail("needs nothing");
      }
      for (const status of component.requirements) {
        text += detail(`${mark(status.met)} ${describeStatus(status)}`);
      }
    });
    text += "\n";
  });
  if (families.some(({ components }) => components.some((c) => c.available === undefined))) {
    text += `${mark(undefined)} not checked: its npm packages are loaded (and downloaded the ` +
      "first time) only once a configuration selects it\n\n";
  }
  text += `Document formats: ${supportedSuffixes().join(", ")}\n`;
  const embedder = await describeEmbedder(env);
  text += `Embedder: ${embedder.text}\n`;
  text += `Local models: ${await describeLocalModels(env)}\n`;
  return { text, unavailable, embedderProblem: embedder.problem };
}

/**
 * Why the configured sign-in cannot be served: its class does not load, its
 * settings are missing or wrong (as its constructor says), or it is the demo
 * sign-in on an address other than loopback.
 */
async function signInProblem(config: Config): Promise<string | undefined> {
  try {
    const found = await SERVER_CLASS_PATHS.load(config.authentication, { base: config.base });
    const exposed = exposedDemo(config, found);
    if (exposed === undefined && typeof found === "function") new (found as new () => unknown)();
    return exposed;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * The embedder the source storages use, from the environment, in words; or why it cannot run,
 * which `problem` holds too.
 */
async function describeEmbedder(
  env: CommandContext["env"],
): Promise<{ text: string; problem?: string }> {
  try {
    const embedder = embedderFromEnv(env);
    const problem = await embedder.problem?.();
    if (problem) {
      return {
        text: `${embedder.id}
  ${mark(false)} ${problem}`,
        problem,
      };
    }
    return {
      text: embedder.description ? `${embedder.id} (${embedder.description})` : embedder.id,
    };
  } catch (error) {
    const problem = (error as Error).message;
    return { text: `${mark(false)} ${problem}`, problem };
  }
}

/**
 * What svc api offers of a local Ollama server: its text models as assistants, and how to use its
 * embedding models; or that none answers.
 */
async function describeLocalModels(env: CommandContext["env"]): Promise<string> {
  const get = (name: string) => env?.[name]?.trim() || undefined;
  const host = ollamaUrl(get("OLLAMA_HOST"));
  const shown = quote(redactUrl(host));
  if (!offersOllamaModels(get("SVC_OLLAMA_OFFER_MODELS"))) {
    return "not offered (SVC_OLLAMA_OFFER_MODELS is false)";
  }
  const models = await ollamaModels(host);
  if (!models) return `no Ollama server answers at ${shown}`;
  const text = models.filter((model) => !model.embedding).map((model) => `Ollama/${model.name}`);
  const embedding = models.filter((model) => model.embedding).map((model) => model.name);
  const lines = [
    `Ollama at ${shown}`,
    `  offered as assistants: ${text.length ? text.map(quote).join(", ") : "none"}`,
  ];
  if (embedding.length > 0) {
    lines.push(
      `  embedding models: ${embedding.map(quote).join(", ")}; to embed with one, set ` +
        `SVC_EMBEDDING_MODEL=openai/${embedding[0]} and OPENAI_BASE_URL=${redactUrl(host)}/v1`,
    );
  }
  return lines.join("\n");
}

/** The width of a text in a terminal: one column per code point, which holds for ✓, ✗ and ASCII. */
function width(text: string): number {
  return [...text].length;
}

function pad(text: string, columns: number): string {
  return text + " ".repeat(Math.max(0, columns - width(text)));
}
