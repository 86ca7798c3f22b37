/**
 * From the values of a file (or of `Config.from`) and the environment to the
 * final values of a configuration: every problem collected, defaults filled in.
 * @module
 */
import { resolve } from "../components/core/paths.ts";
import { quote, SvcError } from "../components/core/errors.ts";
import { localRoot } from "../components/core/local_root.ts";
import {
  check,
  type Checked,
  closestKey,
  defaultDatabaseUrl,
  DEMO_AUTHENTICATION,
  envName,
  KEYS,
  type KeySpec,
  REMOVED,
  show,
  TABLES,
} from "./config_schema.ts";
import { type Env, readEnv } from "./settings.ts";

export type { Env };

/** Options of {@linkcode build}. */
export interface BuildOptions {
  base: string;
  env: Env | undefined;
  /** The file the values came from, to name in the error. */
  source?: string;
}

/**
 * Checks every value, collecting all problems, and only when there are none
 * gives the final values by dotted key, defaults filled in.
 */
export function build(values: unknown, { base, env, source }: BuildOptions): Map<string, unknown> {
  const problems: string[] = [];
  const given = givenValues(values, problems);
  const read = envReader(env);
  const resolved = new Map<string, unknown>();
  for (const spec of KEYS) {
    const take = (value: unknown, origin: { base: string; env?: string }) => {
      const checked = check(spec, value, origin);
      if ("problem" in checked) problems.push(...checked.problem.split("\n"));
      else resolved.set(spec.key, checked.value);
    };
    // The file's value is checked even when env overrides it: a wrong file is wrong.
    if (given.has(spec.key)) take(given.get(spec.key), { base });
    const name = envName(spec.key);
    const raw = read(name);
    if (raw === undefined) continue;
    const parsed = fromEnv(spec, raw, name);
    if ("problem" in parsed) problems.push(parsed.problem);
    else take(parsed.value, { base: resolve("."), env: name });
  }
  if (problems.length > 0) {
    const where = source ? ` ${quote(source)}` : "";
    throw new SvcError(
      `Cannot use the configuration${where}:\n${problems.map((p) => `- ${p}`).join("\n")}`,
    );
  }
  fillDefaults(resolved);
  return resolved;
}

/** The values by dotted key; unknown and removed keys become problems. */
function givenValues(values: unknown, problems: string[]): Map<string, unknown> {
  const given = new Map<string, unknown>();
  if (!isTable(values)) {
    problems.push(`The configuration must be a table of keys, not ${show(values)}`);
    return given;
  }
  const known = new Set(KEYS.map((spec) => spec.key));
  const take = (key: string, value: unknown) => {
    if (Object.hasOwn(REMOVED, key)) problems.push(`${quote(key)} was removed: ${REMOVED[key]}`);
    else if (known.has(key)) given.set(key, value);
    else {
      const closest = closestKey(key);
      problems.push(
        `Unknown key ${quote(key)}${closest ? ` (did you mean ${quote(closest)}?)` : ""}`,
      );
    }
  };
  for (const [key, value] of Object.entries(values)) {
    if (!TABLES.includes(key)) take(key, value);
    else if (!isTable(value)) problems.push(`${quote(key)} must be a table, not ${show(value)}`);
    else for (const [name, inner] of Object.entries(value)) take(`${key}.${name}`, inner);
  }
  return given;
}

/** An environment variable's text as the value the file would hold. */
function fromEnv(spec: KeySpec, raw: string, name: string): Checked {
  if (spec.kind === "classes" || spec.kind === "origins") {
    try {
      return { value: JSON.parse(raw) };
    } catch {
      const example = spec.kind === "origins"
        ? "http://127.0.0.1:31477"
        : "svc.assistants.SvcDemoAssistant";
      return {
        problem: `${quote(spec.key)} from env ${name} must be a JSON list such as ` +
          `["${example}"], not ${quote(raw)}`,
      };
    }
  }
  if (spec.kind === "port" && /^\s*[0-9]+\s*$/.test(raw)) return { value: Number(raw) };
  if (spec.kind === "boolean") {
    const word = raw.trim().toLowerCase();
    if (["true", "1", "yes", "on"].includes(word)) return { value: true };
    if (["false", "0", "no", "off", ""].includes(word)) return { value: false };
    return {
      problem: `${quote(spec.key)} from env ${name} must be true or false, not ${quote(raw)}`,
    };
  }
  return { value: raw };
}

/**
 * The components of a configuration that names none: the embedded ones that retrieve and answer
 * from the user's documents with no key, package or server, then the 0.2.1 demo components.
 */
export const DEFAULT_SOURCE_STORAGES: readonly string[] = [
  "svc.source_storages.LibSQL",
  "svc.source_storages.SvcDemoSourceStorage",
];
/** The assistants of a configuration that names none; see {@linkcode DEFAULT_SOURCE_STORAGES}. */
export const DEFAULT_ASSISTANTS: readonly string[] = [
  "svc.assistants.Extractive",
  "svc.assistants.SvcDemoAssistant",
];

/** Defaults last, so that the computed ones follow the final values they derive from. */
function fillDefaults(values: Map<string, unknown>): void {
  const fill = (key: string, value: () => unknown) => {
    if (!values.has(key)) values.set(key, value());
  };
  fill("local_root", () => localRoot());
  fill("authentication", () => DEMO_AUTHENTICATION);
  fill("document", () => "svc.core.LocalDocument");
  fill("source_storages", () => [...DEFAULT_SOURCE_STORAGES]);
  fill("assistants", () => [...DEFAULT_ASSISTANTS]);
  fill("api.hostname", () => "127.0.0.1");
  fill("api.port", () => 31476);
  fill("api.root_path", () => "");
  fill("ui.hostname", () => "127.0.0.1");
  fill("ui.port", () => 31477);
  const api = httpUrl(values.get("api.hostname"), values.get("api.port"));
  fill("api.url", () => `${api}${values.get("api.root_path")}`);
  fill("api.database_url", () => defaultDatabaseUrl(values.get("local_root") as string));
  const ui = httpUrl(values.get("ui.hostname"), values.get("ui.port"));
  fill("api.origins", () => [ui]);
  fill("ui.origins", () => [ui]);
  fill("api.allow_insecure_demo_sign_in", () => false);
}

function httpUrl(hostname: unknown, port: unknown): string {
  const host = String(hostname);
  // An IPv6 address needs brackets in a URL.
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** Reads the given variables, else the process environment (read once, by `readEnv()`). */
export function envReader(env: Env = readEnv()): (name: string) => string | undefined {
  return (name) => Object.hasOwn(env, name) ? env[name] : undefined;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !(value instanceof Date);
}
