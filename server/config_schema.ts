/**
 * The keys of `svc.toml`, what each holds and sets (which `settings.ts` lists
 * with the other settings), how each value is checked and normalised, and the
 * words of every refusal. `config.ts` puts these together into a `Config`.
 * @module
 */
import { homedir, isAbsolute, join, resolve } from "../components/core/paths.ts";
import { quote } from "../components/core/errors.ts";
import { trimSlashes } from "../components/core/text_scan.ts";
import { isModulePath } from "../components/class_paths.ts";
import { SERVER_CLASS_PATHS } from "./auth/registry.ts";
import { distance } from "fastest-levenshtein";
import { closest } from "./closest.ts";

/** What a key holds, and so how its value is checked. */
export type Kind =
  | "path"
  | "class"
  | "classes"
  | "hostname"
  | "port"
  | "rootPath"
  | "url"
  | "origins"
  | "databaseUrl"
  | "boolean";

/** A key of the configuration, dotted (`api.port`), what it holds, and what it sets. */
export interface KeySpec {
  key: string;
  kind: Kind;
  /** For class paths: the prefix of the family's built-ins. */
  family?: string;
  /** What its value is, as the configuration reference names it. */
  type: string;
  /** The value when it is not set, as the reference shows it. */
  default: string;
  /** What it sets, in one line. */
  description: string;
}

/** Every key, in the order `toToml()` writes them. */
export const KEYS: readonly KeySpec[] = [
  {
    key: "local_root",
    kind: "path",
    type: "path",
    default: "`~/.cache/svc`",
    description: "the folder where svc and its components keep their files",
  },
  {
    key: "authentication",
    kind: "class",
    family: "svc.deploy.",
    type: "class path",
    default: "`svc.deploy.SvcDemoAuthentication`",
    description: "how users sign in",
  },
  {
    key: "document",
    kind: "class",
    family: "svc.core.",
    type: "class path",
    default: "`svc.core.LocalDocument`",
    description: "the class of every uploaded document",
  },
  {
    key: "source_storages",
    kind: "classes",
    family: "svc.source_storages.",
    type: "JSON list of class paths",
    default: '`["svc.source_storages.LibSQL", "svc.source_storages.SvcDemoSourceStorage"]`',
    description: "the source storages a chat may use",
  },
  {
    key: "assistants",
    kind: "classes",
    family: "svc.assistants.",
    type: "JSON list of class paths",
    default: '`["svc.assistants.Extractive", "svc.assistants.SvcDemoAssistant"]`',
    description: "the assistants a chat may use",
  },
  {
    key: "api.hostname",
    kind: "hostname",
    type: "host",
    default: "`127.0.0.1`",
    description: "where the REST API binds",
  },
  {
    key: "api.port",
    kind: "port",
    type: "port",
    default: "`31476`",
    description: "the port of the REST API",
  },
  {
    key: "api.root_path",
    kind: "rootPath",
    type: "path prefix",
    default: '`""`',
    description: "the prefix a proxy serves the API under, such as `/svc`",
  },
  {
    key: "api.url",
    kind: "url",
    type: "URL",
    default: "`http://{api.hostname}:{api.port}{api.root_path}`",
    description: "where clients (the web UI) reach the API; binding is not affected",
  },
  {
    key: "api.database_url",
    kind: "databaseUrl",
    type: "database URL",
    default: "`sqlite:///<local_root>/svc.db`",
    description: "the API's database: SQLite file or memory, a libSQL server, or PostgreSQL",
  },
  {
    key: "api.origins",
    kind: "origins",
    type: "JSON list of origins",
    default: '`["http://{ui.hostname}:{ui.port}"]`',
    description: "the origins CORS allows (each on 127.0.0.1 also on localhost)",
  },
  {
    key: "api.allow_insecure_demo_sign_in",
    kind: "boolean",
    type: "boolean",
    default: "`false`",
    description: "serve the demo sign-in on an address other than loopback",
  },
  {
    key: "ui.hostname",
    kind: "hostname",
    type: "host",
    default: "`127.0.0.1`",
    description: "where the web UI binds",
  },
  {
    key: "ui.port",
    kind: "port",
    type: "port",
    default: "`31477`",
    description: "the port of the web UI",
  },
  {
    key: "ui.origins",
    kind: "origins",
    type: "JSON list of origins",
    default: '`["http://{ui.hostname}:{ui.port}"]`',
    description: "the origins the web UI's server allows",
  },
];

/** The tables of the configuration. */
export const TABLES: readonly string[] = ["api", "ui"];

/** The default authentication. */
export const DEMO_AUTHENTICATION = "svc.deploy.SvcDemoAuthentication";

/** Options of earlier versions, and what replaced them. */
export const REMOVED: Readonly<Record<string, string>> = {
  local_cache_root: 'use "local_root"',
  core: "its options moved to the top level",
  queue_url: 'it went with the task queue; answers are computed by "svc api"',
  "api.queue_url": 'it went with the task queue; answers are computed by "svc api"',
  "ui.url": 'the web UI talks to the API at "api.url"',
  "api.upload_token_secret": "set the secret in env SVC_API_DOCUMENT_UPLOAD_SECRET instead",
  "api.upload_token_ttl": "an upload token lives for a fixed 5 minutes",
};

const DATABASE_SCHEMES = [
  "sqlite",
  "libsql",
  "http",
  "https",
  "ws",
  "wss",
  "postgresql",
  "postgres",
];

/** The environment variable of a key: `api.port` -> `SVC_API_PORT`. */
export function envName(key: string): string {
  return `SVC_${key.replace(".", "_").toUpperCase()}`;
}

/** Where a value came from, to name it in a message. */
export interface Origin {
  /** The folder relative paths are relative to. */
  base: string;
  /** The environment variable, when the value came from there. */
  env?: string;
}

/** A checked, normalised value, or the words of what is wrong with it. */
export type Checked = { value: unknown } | { problem: string };

/** Checks a value of a key and normalises it (absolute paths, no trailing slashes). */
export function check(spec: KeySpec, value: unknown, origin: Origin): Checked {
  const subject = origin.env ? `${quote(spec.key)} from env ${origin.env}` : quote(spec.key);
  const wrong = (expected: string) => ({
    problem: `${subject} must be ${expected}, not ${show(value)}`,
  });
  switch (spec.kind) {
    case "path":
      if (typeof value !== "string" || value === "") return wrong("a path");
      return { value: resolve(origin.base, expandHome(value)) };
    case "hostname":
      if (typeof value !== "string" || value === "") return wrong('a host such as "127.0.0.1"');
      return { value };
    case "port":
      if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 65535) {
        return wrong("an integer from 1 to 65535");
      }
      return { value };
    case "rootPath":
      if (typeof value !== "string" || !/^(\/.*[^/])?$/s.test(value)) {
        return wrong('"" or a path that starts with "/" and does not end with one, such as "/svc"');
      }
      return { value };
    case "url":
      if (typeof value !== "string" || !isHttpUrl(value)) return wrong("an http or https URL");
      return { value: trimSlashes(value) };
    case "origins":
      return checkList(
        value,
        subject,
        { noun: "origin" },
        (item) =>
          isHttpUrl(item)
            ? { value: trimSlashes(item) }
            : { problem: `${subject} lists ${show(item)}, which is not an http or https origin` },
      );
    case "class":
      if (typeof value !== "string" || value === "") {
        return wrong(`a class path such as ${quote(known(spec.family!)[0])}`);
      }
      return checkClass(value, subject, spec.family!);
    case "classes":
      return checkList(
        value,
        subject,
        { noun: "class path", nonEmpty: true },
        (item) => checkClass(item, subject, spec.family!),
      );
    case "databaseUrl":
      return checkDatabaseUrl(value, subject, origin.base);
    case "boolean":
      if (typeof value !== "boolean") return wrong("true or false");
      return { value };
  }
}

/** The default database: a file in the local root. */
export function defaultDatabaseUrl(localRoot: string): string {
  return `sqlite:///${join(localRoot, "svc.db")}`;
}

/** Where an unknown key probably should have been: `api.prot` -> `api.port`. */
export function closestKey(key: string): string | undefined {
  const [table, name] = key.includes(".") ? key.split(".", 2) as [string, string] : ["", key];
  let best: { key: string; score: number } | undefined;
  for (const candidate of [...KEYS.map((spec) => spec.key), ...TABLES]) {
    const dot = candidate.indexOf(".");
    const candidateTable = dot < 0 ? "" : candidate.slice(0, dot);
    const score = distance(name, candidate.slice(dot + 1)) + (candidateTable === table ? 0 : 1);
    if (score <= 2 && (best === undefined || score < best.score)) best = { key: candidate, score };
  }
  return best?.key;
}

/** A value as a message shows it: strings quoted, tables and lists as JSON. */
export function show(value: unknown): string {
  if (typeof value === "string") return quote(value);
  if (typeof value === "bigint") return String(value);
  if (value instanceof Date) return quote(value.toISOString());
  if (typeof value === "object" && value !== null) {
    const json = JSON.stringify(value, (_, v) => typeof v === "bigint" ? Number(v) : v);
    return json.length > 80 ? `${json.slice(0, 76)} ...` : json;
  }
  return String(value);
}

function checkList(
  value: unknown,
  subject: string,
  { noun, nonEmpty = false }: { noun: string; nonEmpty?: boolean },
  checkItem: (item: string) => Checked,
): Checked {
  if (!Array.isArray(value)) return { problem: `${subject} must be a list, not ${show(value)}` };
  if (nonEmpty && value.length === 0) {
    return { problem: `${subject} must list at least one class path, not []` };
  }
  const items: string[] = [];
  const problems: string[] = [];
  for (const item of value) {
    if (typeof item !== "string") {
      problems.push(`${subject} must be a list of ${noun}s, but it lists ${show(item)}`);
      continue;
    }
    const checked = checkItem(item);
    if ("problem" in checked) problems.push(checked.problem);
    else if (items.includes(checked.value as string)) {
      problems.push(`${subject} lists ${quote(item)} twice`);
    } else items.push(checked.value as string);
  }
  return problems.length ? { problem: problems.join("\n") } : { value: items };
}

function checkClass(classPath: string, subject: string, family: string): Checked {
  const builtins = known(family);
  if (isModulePath(classPath) || builtins.includes(classPath)) return { value: classPath };
  const suggestion = closest(classPath, builtins, { maxDistance: 3 });
  return {
    problem: `Unknown class path ${quote(classPath)} in ${subject}` +
      (suggestion ? ` (did you mean ${quote(suggestion)}?)` : "") +
      `: the built-in ones are ${builtins.join(", ")}, ` +
      `and your own are named like "./module.ts#Export"`,
  };
}

/** The built-in class paths of a family. */
function known(family: string): string[] {
  return SERVER_CLASS_PATHS.classPaths().filter((name) => name.startsWith(family)).sort();
}

function checkDatabaseUrl(value: unknown, subject: string, base: string): Checked {
  if (value === "memory") {
    return {
      problem: `${subject} = "memory" was removed: use "sqlite://" for an in-memory database`,
    };
  }
  const match = typeof value === "string" ? /^([a-z][a-z0-9+.-]*):\/\/(.*)$/is.exec(value) : null;
  if (!match) {
    return { problem: `${subject} must be a URL such as "sqlite:///svc.db", not ${show(value)}` };
  }
  const scheme = match[1]!.toLowerCase();
  const rest = match[2]!;
  if (!DATABASE_SCHEMES.includes(scheme)) {
    return {
      problem: `${subject} has the unsupported scheme ${quote(scheme)}: ` +
        `use sqlite, libsql, http, https, ws, wss or postgresql`,
    };
  }
  if (scheme !== "sqlite" || rest === "") return { value };
  // sqlite:///relative/path and sqlite:////absolute/path: one slash more than the path.
  const path = rest.startsWith("/") ? rest.slice(1) : "";
  if (path === "") {
    return {
      problem: `${subject} must be "sqlite://" (in memory), "sqlite:///relative/path" or ` +
        `"sqlite:////absolute/path", not ${show(value)}`,
    };
  }
  return { value: `sqlite:///${isAbsolute(path) ? path : resolve(base, path)}` };
}

function isHttpUrl(text: string): boolean {
  return URL.canParse(text) && /^https?:$/.test(new URL(text).protocol);
}

function expandHome(path: string): string {
  return path === "~" || path.startsWith("~/") ? join(homedir(), path.slice(1)) : path;
}
