/**
 * The `SVC_` environment variables svc knows, and a warning for each other
 * one that is set: a mistyped name would otherwise be ignored in silence.
 * @module
 */
import { quote } from "../components/core/errors.ts";
import { closest } from "./closest.ts";
import type { Env } from "./config_load.ts";
import { envName, KEYS } from "./config_schema.ts";

/**
 * Every `SVC_` variable that svc, its built-in components, its tests or its
 * benchmarks read, besides the one of each configuration key
 * (`SVC_LOCAL_ROOT`, `SVC_API_PORT`, ...). `tests/server/config_env_test.ts`
 * fails when the code reads one that is not listed here.
 */
export const ENV_VARIABLES: readonly string[] = [
  // svc itself
  "SVC_CONFIG",
  "SVC_API_KEY",
  "SVC_API_DOCUMENT_UPLOAD_SECRET",
  "SVC_API_MAX_UPLOAD_SIZE",
  "SVC_API_BODY_TIMEOUT",
  "SVC_API_UPLOAD_TIMEOUT",
  "SVC_API_UPLOAD_MIN_RATE",
  "SVC_API_UPLOAD_RATE_WINDOW",
  "SVC_API_MAX_UPLOADS",
  "SVC_API_MAX_UPLOADS_PER_USER",
  "SVC_API_MAX_CHATS_PER_USER",
  "SVC_API_MAX_STORAGE_PER_USER",
  "SVC_API_MAX_PENDING_DOCUMENTS_PER_USER",
  "SVC_API_DATABASE_AUTH_TOKEN",
  "SVC_API_SESSION_SECRET",
  "SVC_API_SESSION_TTL",
  "SVC_API_LOGIN_FAILURES_PER_USER",
  "SVC_API_LOGIN_FAILURES_PER_USER_ADDRESS",
  "SVC_API_LOGIN_FAILURES_PER_ADDRESS",
  "SVC_API_LOGIN_FAILURE_WINDOW",
  "SVC_API_PASSWORD_WORKERS",
  "SVC_API_PASSWORD_QUEUE",
  "SVC_API_TRUSTED_PROXIES",
  "SVC_API_PROXY_USER_HEADER",
  "SVC_OIDC_ISSUER",
  "SVC_OIDC_CLIENT_ID",
  "SVC_OIDC_CLIENT_SECRET",
  "SVC_OIDC_REDIRECT_URL",
  "SVC_OIDC_SCOPES",
  "SVC_OIDC_USER_CLAIM",
  "SVC_OIDC_NAME",
  "SVC_DEMO_AUTHENTICATION_PASSWORD",
  "SVC_DEMO_AUTHENTICATION_SECRET",
  "SVC_DEMO_AUTHENTICATION_TTL",
  "SVC_SHUTDOWN_TIMEOUT",
  // the built-in assistants
  "SVC_ASSISTANT_TIMEOUT",
  "SVC_OPENAI_MODEL",
  "SVC_OPENAI_COMPATIBLE_URL",
  "SVC_OPENAI_COMPATIBLE_MODEL",
  "SVC_OPENAI_COMPATIBLE_API_KEY",
  "SVC_OLLAMA_MODEL",
  "SVC_OLLAMA_OFFER_MODELS",
  "SVC_ANTHROPIC_MODEL",
  "SVC_GEMINI_MODEL",
  "SVC_COHERE_MODEL",
  "SVC_AI21_MODEL",
  // the built-in source storages and their embedder
  "SVC_EMBEDDING_MODEL",
  "SVC_EMBEDDING_DIMENSION",
  "SVC_LIBSQL_URL",
  "SVC_LIBSQL_AUTH_TOKEN",
  "SVC_CHROMA_URL",
  "SVC_POSTGRES_URL",
  "SVC_MIN_CHUNK_SIZE",
  "SVC_MAX_CHUNK_SIZE",
  "SVC_MAX_CHUNKS_PER_DOCUMENT",
  "SVC_MAX_NUM_TOKENS",
  "SVC_SHARE_INDEXES",
  // the document readers
  "SVC_PDF_WORKERS",
  "SVC_READERS",
  "SVC_READER_HEAP_MB",
  "SVC_READER_TIMEOUT",
  // the tests and benchmarks, which may share a shell with svc
  "SVC_REQUIRE_BROWSER",
  "SVC_CHROMIUM",
  "SVC_REQUIRE_POSTGRES",
  "SVC_POSTGRES_BIN",
  "SVC_FUZZ_SEED",
  "SVC_BENCH_CHUNKS",
  "SVC_BENCH_STORAGES",
];

/** Every `SVC_` variable svc knows: those of the configuration keys, then {@linkcode ENV_VARIABLES}. */
export function knownEnvVariables(): string[] {
  return [...KEYS.map((spec) => envName(spec.key)), ...ENV_VARIABLES];
}

/**
 * A warning for each `SVC_` variable that is set but known to neither svc
 * nor its built-in components, with the known name it probably meant. It is
 * not an error: a component of your own may read a variable of its own.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unknownEnvWarnings } from "./config_env.ts";
 * const warnings = unknownEnvWarnings({ SVC_API_PROT: "8000", SVC_API_PORT: "8001", HOME: "/" });
 * assert(warnings.length === 1);
 * assert(warnings[0]!.startsWith('Unknown environment variable "SVC_API_PROT" (did you mean "SVC_API_PORT"?)'));
 * ```
 */
export function unknownEnvWarnings(env?: Env): string[] {
  const known = knownEnvVariables();
  return setNames(env)
    .filter((name) => name.startsWith("SVC_") && !known.includes(name))
    .sort()
    .map((name) => {
      const suggestion = closest(name, known);
      return `Unknown environment variable ${quote(name)}` +
        (suggestion ? ` (did you mean ${quote(suggestion)}?)` : "") +
        ": neither svc nor its built-in components read it";
    });
}

/** The names of the variables that are set; none when the environment may not be listed. */
function setNames(env: Env | undefined): string[] {
  if (env) return Object.keys(env).filter((name) => env[name] !== undefined);
  try {
    return Object.keys(Deno.env.toObject());
  } catch {
    return [];
  }
}
