/**
 * Everything that can be set, declared once: each key of `svc.toml` with its
 * environment variable, and every other variable that svc, its built-in
 * components, its tests or its benchmarks read, each with its type, default
 * and meaning. The configuration reference is rendered from it
 * ({@linkcode settingsTable}), `config_env.ts` warns of a variable it does not
 * list, and {@linkcode readEnv} is where the server and the commands read the
 * environment, once, at start.
 * @module
 */
import { envName, KEYS } from "./config_schema.ts";

/** Environment variables by name; an absent name is unset. */
export type Env = Record<string, string | undefined>;

/** Who reads a setting. */
export type Reader =
  | "svc"
  | "assistants"
  | "source storages"
  | "document readers"
  | "tests";

/** One setting: a variable of the environment, and the key of `svc.toml` it overrides, if any. */
export interface Setting {
  /** The environment variable. */
  env: string;
  /** The dotted key of `svc.toml` (`api.port`), when the setting is one. */
  key?: string;
  /** What its value is, as the reference names it. */
  type: string;
  /** The value when it is unset, as the reference shows it. */
  default: string;
  /** The value when it is unset, as the code takes it, where it is one number. */
  value?: number;
  /** What it sets, in one line. */
  description: string;
  /** Who reads it. */
  reader: Reader;
}

/** The settings that are keys of `svc.toml`. */
const KEYED: readonly Setting[] = KEYS.map(({ key, type, default: shown, description }) => ({
  env: envName(key),
  key,
  type,
  default: shown,
  description,
  reader: "svc",
}));

/** The settings that are variables of the environment only. */
const VARIABLES: readonly Setting[] = [
  // svc itself
  {
    env: "SVC_CONFIG",
    type: "path",
    default: "`./svc.toml` when it exists",
    description: "the configuration file, when `-c/--config` names none",
    reader: "svc",
  },
  {
    env: "SVC_API_KEY",
    type: "secret",
    default: "none",
    description: "the API key `svc mcp` serves as, checked as the REST API checks it",
    reader: "svc",
  },
  {
    env: "SVC_API_DOCUMENT_UPLOAD_SECRET",
    type: "secret",
    default: "kept in `<local_root>/secrets/upload.key`",
    description: "signs the upload tokens",
    reader: "svc",
  },
  {
    env: "SVC_API_MAX_UPLOAD_SIZE",
    type: "bytes",
    default: "`104857600` (100 MiB)",
    value: 104857600,
    description: "the file of one upload",
    reader: "svc",
  },
  {
    env: "SVC_API_BODY_TIMEOUT",
    type: "seconds",
    default: "`30`",
    value: 30,
    description: "how long any request body may send nothing",
    reader: "svc",
  },
  {
    env: "SVC_API_UPLOAD_TIMEOUT",
    type: "seconds",
    default: "`3600`",
    value: 3600,
    description: "how long one upload may take in all",
    reader: "svc",
  },
  {
    env: "SVC_API_UPLOAD_MIN_RATE",
    type: "bytes a second",
    default: "`4096`",
    value: 4096,
    description: "the slowest an upload may send, over the rate window",
    reader: "svc",
  },
  {
    env: "SVC_API_UPLOAD_RATE_WINDOW",
    type: "seconds",
    default: "`30`",
    value: 30,
    description: "the window the upload rate is measured over",
    reader: "svc",
  },
  {
    env: "SVC_API_ANSWER_TIMEOUT",
    type: "seconds",
    default: "`600`",
    value: 600,
    description:
      "how long one answer may run in all on the server, whether or not its client stays",
    reader: "svc",
  },
  {
    env: "SVC_API_ANSWER_SAVE_INTERVAL",
    type: "seconds",
    default: "`1`",
    value: 1,
    description:
      "how often a running answer's text so far is saved, and stops asked on other replicas read",
    reader: "svc",
  },
  {
    env: "SVC_API_MAX_UPLOADS",
    type: "integer",
    default: "`32`",
    value: 32,
    description: "uploads of all users at once",
    reader: "svc",
  },
  {
    env: "SVC_API_MAX_UPLOADS_PER_USER",
    type: "integer",
    default: "`8`",
    value: 8,
    description: "uploads of one user at once",
    reader: "svc",
  },
  {
    env: "SVC_API_MAX_CHATS_PER_USER",
    type: "integer",
    default: "`1000`",
    value: 1000,
    description: "the chats one user may have",
    reader: "svc",
  },
  {
    env: "SVC_API_MAX_STORAGE_PER_USER",
    type: "bytes",
    default: "`1073741824` (1 GiB)",
    value: 1073741824,
    description: "the files one user may have uploaded",
    reader: "svc",
  },
  {
    env: "SVC_API_MAX_PENDING_DOCUMENTS_PER_USER",
    type: "integer",
    default: "`200`",
    value: 200,
    description: "the documents one user may have registered and not yet uploaded",
    reader: "svc",
  },
  {
    env: "SVC_API_DATABASE_AUTH_TOKEN",
    type: "secret",
    default: "none",
    description: "the token of a libSQL server named by `api.database_url`",
    reader: "svc",
  },
  {
    env: "SVC_API_SESSION_SECRET",
    type: "secret",
    default: "kept in `<local_root>/secrets/session.key`",
    description: "signs the session tokens",
    reader: "svc",
  },
  {
    env: "SVC_API_SESSION_TTL",
    type: "seconds",
    default: "`604800` (7 days)",
    value: 604800,
    description: "how long a session lasts",
    reader: "svc",
  },
  {
    env: "SVC_API_LOGIN_FAILURES_PER_USER",
    type: "integer",
    default: "`100`",
    value: 100,
    description: "failed logins allowed in the window for one user",
    reader: "svc",
  },
  {
    env: "SVC_API_LOGIN_FAILURES_PER_USER_ADDRESS",
    type: "integer",
    default: "`10`",
    value: 10,
    description: "failed logins allowed in the window for one user from one address",
    reader: "svc",
  },
  {
    env: "SVC_API_LOGIN_FAILURES_PER_ADDRESS",
    type: "integer",
    default: "`30`",
    value: 30,
    description: "failed logins allowed in the window from one address",
    reader: "svc",
  },
  {
    env: "SVC_API_LOGIN_FAILURE_WINDOW",
    type: "seconds",
    default: "`900`",
    value: 900,
    description: "the window of the login limits",
    reader: "svc",
  },
  {
    env: "SVC_API_PASSWORD_WORKERS",
    type: "integer",
    default: "1 on up to 2 cores, else 2",
    description: "the threads that check passwords (argon2id)",
    reader: "svc",
  },
  {
    env: "SVC_API_PASSWORD_QUEUE",
    type: "integer",
    default: "`256`",
    value: 256,
    description: "the password checks that may wait for a thread before a login is refused",
    reader: "svc",
  },
  {
    env: "SVC_API_TRUSTED_PROXIES",
    type: "JSON list of addresses",
    default: "`[]`",
    description: "the proxies whose forwarded client addresses svc believes",
    reader: "svc",
  },
  {
    env: "SVC_API_PROXY_USER_HEADER",
    type: "header name",
    default: "`X-Forwarded-User`",
    description: "the header that names the user behind a trusted proxy",
    reader: "svc",
  },
  {
    env: "SVC_OIDC_ISSUER",
    type: "URL",
    default: "none: required by the OpenID Connect sign-in",
    description: "the OpenID Connect provider's issuer",
    reader: "svc",
  },
  {
    env: "SVC_OIDC_CLIENT_ID",
    type: "text",
    default: "none: required by the OpenID Connect sign-in",
    description: "svc's client id at the provider",
    reader: "svc",
  },
  {
    env: "SVC_OIDC_CLIENT_SECRET",
    type: "secret",
    default: "unset: a public client, PKCE alone",
    description: "svc's client secret at the provider",
    reader: "svc",
  },
  {
    env: "SVC_OIDC_REDIRECT_URL",
    type: "URL",
    default: "`{api.url}/auth/oidc/callback`",
    description: "the callback as registered at the provider",
    reader: "svc",
  },
  {
    env: "SVC_OIDC_SCOPES",
    type: "words",
    default: "`openid profile email`",
    description: "the scopes asked for",
    reader: "svc",
  },
  {
    env: "SVC_OIDC_USER_CLAIM",
    type: "text",
    default: "`sub`",
    description: "the claim whose value is the svc user",
    reader: "svc",
  },
  {
    env: "SVC_OIDC_NAME",
    type: "text",
    default: "the issuer's host",
    description: 'the provider as the login page names it ("Sign in with ...")',
    reader: "svc",
  },
  {
    env: "SVC_DEMO_AUTHENTICATION_PASSWORD",
    type: "secret",
    default: "unset: each username is its password",
    description: "the one password of the demo sign-in",
    reader: "svc",
  },
  {
    env: "SVC_DEMO_AUTHENTICATION_SECRET",
    type: "secret",
    default: "`SVC_API_SESSION_SECRET`",
    description: "the name of `SVC_API_SESSION_SECRET` in 0.2.1",
    reader: "svc",
  },
  {
    env: "SVC_DEMO_AUTHENTICATION_TTL",
    type: "seconds",
    default: "`SVC_API_SESSION_TTL`",
    description: "how long a session of the demo sign-in lasts",
    reader: "svc",
  },
  {
    env: "SVC_SHUTDOWN_TIMEOUT",
    type: "seconds",
    default: "`10`",
    value: 10,
    description: "how long a stopping server waits for the requests in flight",
    reader: "svc",
  },
  {
    env: "SVC_OLLAMA_OFFER_MODELS",
    type: "boolean",
    default: "`true`",
    description: "offer the models of a local Ollama server as assistants",
    reader: "svc",
  },
  {
    env: "OLLAMA_HOST",
    type: "URL",
    default: "`http://127.0.0.1:11434`",
    description: "the Ollama server, for its models and the Ollama assistant",
    reader: "svc",
  },
  // the built-in assistants
  {
    env: "SVC_ASSISTANT_TIMEOUT",
    type: "seconds",
    default: "`60`",
    description: "how long an assistant waits for its model to answer",
    reader: "assistants",
  },
  {
    env: "SVC_FOLLOW_UP_TIMEOUT",
    type: "seconds",
    default: "`5`",
    description:
      "how long retrieval waits for a model assistant to word a follow-up question to stand alone",
    reader: "assistants",
  },
  {
    env: "SVC_OPENAI_MODEL",
    type: "model",
    default: "`gpt-4.1-mini`",
    description: "the model of `svc.assistants.OpenAI`",
    reader: "assistants",
  },
  {
    env: "OPENAI_API_KEY",
    type: "secret",
    default: "none: required",
    description: "the key of `svc.assistants.OpenAI` and of OpenAI embeddings",
    reader: "assistants",
  },
  {
    env: "OPENAI_BASE_URL",
    type: "URL",
    default: "`https://api.openai.com/v1`",
    description: "the server of OpenAI embeddings",
    reader: "source storages",
  },
  {
    env: "SVC_OPENAI_COMPATIBLE_URL",
    type: "URL",
    default: "none: required",
    description: "the server of `svc.assistants.OpenAICompatible`",
    reader: "assistants",
  },
  {
    env: "SVC_OPENAI_COMPATIBLE_MODEL",
    type: "model",
    default: "none: required",
    description: "the model of `svc.assistants.OpenAICompatible`",
    reader: "assistants",
  },
  {
    env: "SVC_OPENAI_COMPATIBLE_API_KEY",
    type: "secret",
    default: "none",
    description: "the key of `svc.assistants.OpenAICompatible`",
    reader: "assistants",
  },
  {
    env: "ANTHROPIC_API_KEY",
    type: "secret",
    default: "none: required",
    description: "the key of `svc.assistants.Anthropic`",
    reader: "assistants",
  },
  {
    env: "GOOGLE_API_KEY",
    type: "secret",
    default: "none: required",
    description: "the key of `svc.assistants.Gemini` (or `GEMINI_API_KEY`)",
    reader: "assistants",
  },
  {
    env: "GEMINI_API_KEY",
    type: "secret",
    default: "none: required",
    description: "the key of `svc.assistants.Gemini` (or `GOOGLE_API_KEY`)",
    reader: "assistants",
  },
  {
    env: "COHERE_API_KEY",
    type: "secret",
    default: "none: required",
    description: "the key of `svc.assistants.Cohere`",
    reader: "assistants",
  },
  {
    env: "AI21_API_KEY",
    type: "secret",
    default: "none: required",
    description: "the key of `svc.assistants.AI21`",
    reader: "assistants",
  },
  {
    env: "SVC_OLLAMA_MODEL",
    type: "model",
    default: "`llama3.2`",
    description: "the model of `svc.assistants.Ollama`",
    reader: "assistants",
  },
  {
    env: "SVC_ANTHROPIC_MODEL",
    type: "model",
    default: "`claude-sonnet-4-6`",
    description: "the model of `svc.assistants.Anthropic`",
    reader: "assistants",
  },
  {
    env: "SVC_GEMINI_MODEL",
    type: "model",
    default: "`gemini-2.5-flash`",
    description: "the model of `svc.assistants.Gemini`",
    reader: "assistants",
  },
  {
    env: "SVC_COHERE_MODEL",
    type: "model",
    default: "`command-a-03-2025`",
    description: "the model of `svc.assistants.Cohere`",
    reader: "assistants",
  },
  {
    env: "SVC_AI21_MODEL",
    type: "model",
    default: "`jamba-large`",
    description: "the model of `svc.assistants.AI21`",
    reader: "assistants",
  },
  // the built-in source storages and their embedder
  {
    env: "SVC_EMBEDDING_MODEL",
    type: "model",
    default: "`svc/hash-v1`",
    description:
      "the embedder of the indexed storages: `svc/hash-v1[-<dimension>]` or `openai/<model>`",
    reader: "source storages",
  },
  {
    env: "SVC_EMBEDDING_DIMENSION",
    type: "integer",
    default: "the model's",
    description: "the length of the embedding model's vectors",
    reader: "source storages",
  },
  {
    env: "SVC_LIBSQL_URL",
    type: "URL",
    default: "`file:<local_root>/libsql/sources.db`",
    description: "the database of `svc.source_storages.LibSQL`",
    reader: "source storages",
  },
  {
    env: "SVC_LIBSQL_AUTH_TOKEN",
    type: "secret",
    default: "none",
    description: "the token of a libSQL server named by `SVC_LIBSQL_URL`",
    reader: "source storages",
  },
  {
    env: "SVC_CHROMA_URL",
    type: "URL",
    default: "`http://127.0.0.1:8000`",
    description: "the Chroma server of `svc.source_storages.Chroma`",
    reader: "source storages",
  },
  {
    env: "SVC_POSTGRES_URL",
    type: "URL",
    default: "the API's database when it is PostgreSQL",
    description: "the database of `svc.source_storages.Postgres`",
    reader: "source storages",
  },
  {
    env: "SVC_MIN_CHUNK_SIZE",
    type: "integer",
    default: "`8` tokens",
    description: "the smallest `chunk_size` a chat may ask for",
    reader: "source storages",
  },
  {
    env: "SVC_MAX_CHUNK_SIZE",
    type: "integer",
    default: "`8192` tokens",
    description: "the largest `chunk_size` a chat may ask for",
    reader: "source storages",
  },
  {
    env: "SVC_MAX_CHUNKS_PER_DOCUMENT",
    type: "integer",
    default: "`10000`",
    description: "the chunks one document may make",
    reader: "source storages",
  },
  {
    env: "SVC_MAX_NUM_TOKENS",
    type: "integer",
    default: "`32768`",
    description: "the largest `num_tokens` a chat may ask for",
    reader: "source storages",
  },
  {
    env: "SVC_SHARE_INDEXES",
    type: "boolean",
    default: "`false`",
    description: "let chats of different users share the index of the same file",
    reader: "source storages",
  },
  {
    env: "LANCE_CPU_THREADS",
    type: "integer",
    default: "at least 8",
    description: "the threads of LanceDB, which `svc.source_storages.LanceDB` sets when unset",
    reader: "source storages",
  },
  // the document readers
  {
    env: "SVC_PDF_WORKERS",
    type: "integer",
    default: "`0`: by the document's size",
    description: "the threads that read one PDF",
    reader: "document readers",
  },
  {
    env: "SVC_READERS",
    type: "integer",
    default: "`2`",
    description: "the threads that read documents at once",
    reader: "document readers",
  },
  {
    env: "SVC_READER_HEAP_MB",
    type: "integer",
    default: "`2048`",
    description: "the memory of one reader thread, in MiB",
    reader: "document readers",
  },
  {
    env: "SVC_READER_TIMEOUT",
    type: "seconds",
    default: "`120`",
    description: "how long one document may take to read",
    reader: "document readers",
  },
  // the tests and benchmarks, which may share a shell with svc
  {
    env: "SVC_REQUIRE_BROWSER",
    type: "boolean",
    default: "`false`",
    description: "fail the browser tests rather than skip them without Chromium",
    reader: "tests",
  },
  {
    env: "SVC_CHROMIUM",
    type: "path",
    default: "Debian's `chromium`",
    description: "the browser of the browser tests",
    reader: "tests",
  },
  {
    env: "SVC_REQUIRE_POSTGRES",
    type: "boolean",
    default: "`false`",
    description: "fail the PostgreSQL tests rather than skip them without PostgreSQL",
    reader: "tests",
  },
  {
    env: "SVC_POSTGRES_BIN",
    type: "path",
    default: "`/usr/lib/postgresql/15/bin`",
    description: "the PostgreSQL programs of the tests",
    reader: "tests",
  },
  {
    env: "SVC_FUZZ_SEED",
    type: "integer",
    default: "a random one",
    description: "the seed of `deno task fuzz`",
    reader: "tests",
  },
  {
    env: "SVC_BENCH_CHUNKS",
    type: "integer",
    default: "the benchmark's",
    description: "the chunks of the retrieval benchmark",
    reader: "tests",
  },
  {
    env: "SVC_BENCH_STORAGES",
    type: "JSON list of names",
    default: "every storage that runs here",
    description: "the storages of the retrieval benchmark",
    reader: "tests",
  },
  {
    env: "SVC_BENCH_CPU_PROF",
    type: "path",
    default: "unset: no profiles",
    description: "a folder where each server of `deno task bench:attacks` writes its CPU profile",
    reader: "tests",
  },
];

/** Every setting: the keys of `svc.toml` first, in the file's order, then the other variables. */
export const SETTINGS: readonly Setting[] = [...KEYED, ...VARIABLES];

/**
 * The default of a setting whose default is one number, for the code that reads the setting.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { numberDefault } from "./settings.ts";
 * assert.equal(numberDefault("SVC_API_MAX_UPLOADS"), 32);
 * ```
 *
 * @throws {Error} for a setting with no number as its default
 */
export function numberDefault(env: string): number {
  const value = SETTINGS.find((setting) => setting.env === env)?.value;
  if (value === undefined) throw new Error(`No number is declared as the default of ${env}`);
  return value;
}

/**
 * The names of every variable svc, its built-in components, its tests or its benchmarks read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { knownEnvVariables } from "./settings.ts";
 * assert(knownEnvVariables().includes("SVC_API_PORT"));
 * assert(knownEnvVariables().includes("SVC_SHUTDOWN_TIMEOUT"));
 * ```
 */
export function knownEnvVariables(): string[] {
  return SETTINGS.map((setting) => setting.env);
}

/**
 * The settings as a Markdown table, for the configuration reference: one row a
 * setting, the keys of `svc.toml` first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { settingsTable } from "./settings.ts";
 * const table = settingsTable();
 * assert(table.startsWith("| variable | key of svc.toml | type | default | what it sets | read by |"));
 * assert(table.includes("| `SVC_API_PORT` | `api.port` | port | `31476` |"));
 * ```
 */
export function settingsTable(settings: readonly Setting[] = SETTINGS): string {
  const cell = (text: string) => text.replaceAll("|", "\\|");
  return [
    "| variable | key of svc.toml | type | default | what it sets | read by |",
    "|---|---|---|---|---|---|",
    ...settings.map((setting) =>
      `| \`${setting.env}\` | ${setting.key ? `\`${setting.key}\`` : ""} | ${
        cell(setting.type)
      } | ${cell(setting.default)} | ${cell(setting.description)} | ${setting.reader} |`
    ),
  ].join("\n");
}

/**
 * The environment of the process, read once: the server and the commands are
 * given this, and read no variable of their own. Without the permission to
 * list the environment, each variable the settings name is read alone.
 */
export function readEnv(): Env {
  try {
    return Deno.env.toObject();
  } catch {
    const env: Env = {};
    for (const name of knownEnvVariables()) {
      try {
        const value = Deno.env.get(name);
        if (value !== undefined) env[name] = value;
      } catch {
        // Not allowed: unset, as far as svc can tell.
      }
    }
    return env;
  }
}
