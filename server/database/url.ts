/**
 * The forms of `database_url` (README, "Configuration") and where each one points.
 * @module
 */
import { isAbsolute, join, resolve } from "../../components/core/paths.ts";
import { quote, SvcError } from "../../components/core/errors.ts";
import { redactUrl } from "../../components/core/redact_url.ts";
import { setApiPostgresUrl } from "../../components/core/api_database.ts";

/** Where a `database_url` points. */
export type DatabaseLocation =
  | { kind: "memory" }
  | { kind: "file"; path: string }
  | { kind: "server"; url: string }
  | { kind: "postgres"; url: string };

/** Options of {@linkcode parseDatabaseUrl}. */
export interface ParseDatabaseUrlOptions {
  /**
   * The folder that `sqlite:///relative/path` is relative to.
   * @default {Deno.cwd()}
   */
  base?: string;
  /** Where an empty URL puts the database: `<localRoot>/svc.db`. */
  localRoot?: string;
}

const SERVER_SCHEMES = ["libsql", "http", "https", "ws", "wss"];
const POSTGRES_SCHEMES = ["postgres", "postgresql"];
const FORMS = '"sqlite://" (in memory), "sqlite:///relative/path", "sqlite:////absolute/path", ' +
  "a libsql://, http(s):// or ws(s):// URL of a libSQL server, " +
  "or a postgresql:// URL of a PostgreSQL database";

/**
 * Where a `database_url` points: `sqlite://` is an in-memory database,
 * `sqlite:///relative/path` a file relative to `options.base`,
 * `sqlite:////absolute/path` a file, `libsql://`, `http(s)://` or `ws(s)://`
 * a libSQL server, and `postgresql://` (or `postgres://`) a PostgreSQL
 * database. Any other form is refused with an `SvcError` naming it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseDatabaseUrl } from "./url.ts";
 * const location = parseDatabaseUrl("sqlite:///data/svc.db", { base: "/srv" });
 * assert(location.kind === "file" && location.path === "/srv/data/svc.db");
 * ```
 */
export function parseDatabaseUrl(
  url: string,
  options: ParseDatabaseUrlOptions = {},
): DatabaseLocation {
  if (url === "" && options.localRoot !== undefined) {
    return { kind: "file", path: resolve(join(options.localRoot, "svc.db")) };
  }
  if (url.trim().toLowerCase() === "memory") {
    throw new SvcError(
      'database_url = "memory" was removed: use "sqlite://" for an in-memory database',
    );
  }
  const scheme = schemeOf(url);
  if (scheme === undefined) {
    throw refused(url, `it is not a URL; use ${FORMS}`);
  }
  if (scheme === "sqlite") return parseSqliteUrl(url, options.base ?? Deno.cwd());
  if (SERVER_SCHEMES.includes(scheme)) {
    // Checked here so that a typo fails with the URL named, not deep in the client.
    if (!URL.canParse(url) || new URL(url).host === "") {
      throw refused(url, "it is not a valid URL of a libSQL server");
    }
    return { kind: "server", url };
  }
  if (POSTGRES_SCHEMES.includes(scheme)) {
    if (!URL.canParse(url) || new URL(url).host === "") {
      throw refused(url, "it is not a valid URL of a PostgreSQL database");
    }
    return { kind: "postgres", url };
  }
  throw refused(url, `the scheme ${quote(scheme)} is not supported; use ${FORMS}`);
}

/**
 * Tells the components that keep their data in PostgreSQL (the Postgres
 * storage) the API's database when `databaseUrl` is a PostgreSQL one, so
 * that they use it when nothing names another; any other URL unsets it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { apiPostgresUrl } from "../../components/core/api_database.ts";
 * import { shareApiDatabase } from "./url.ts";
 * shareApiDatabase("postgresql://svc@db.internal/svc");
 * assert.equal(apiPostgresUrl(), "postgresql://svc@db.internal/svc");
 * shareApiDatabase("sqlite:///svc.db");
 * assert.equal(apiPostgresUrl(), undefined);
 * ```
 */
export function shareApiDatabase(databaseUrl: string): void {
  const scheme = schemeOf(databaseUrl) ?? "";
  setApiPostgresUrl(POSTGRES_SCHEMES.includes(scheme) ? databaseUrl : undefined);
}

/** The scheme a URL starts with, in lower case (RFC 3986's letters); undefined when none. */
function schemeOf(url: string): string | undefined {
  return /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
}

function parseSqliteUrl(url: string, base: string): DatabaseLocation {
  // Taken literally rather than through `URL`, which would percent-decode and
  // normalise the path, so that a file name reads as it is written.
  const rest = url.slice("sqlite:".length);
  if (rest === "//" || rest === "///:memory:") return { kind: "memory" };
  if (!rest.startsWith("///")) {
    throw refused(url, `a SQLite URL has no host; use ${FORMS}`);
  }
  const path = rest.slice("///".length);
  if (path === "" || path === "/" || path.endsWith("/")) {
    throw refused(url, "the URL names a folder, not a database file");
  }
  return { kind: "file", path: isAbsolute(path) ? path : resolve(base, path) };
}

function refused(url: string, problem: string): SvcError {
  return new SvcError(`Cannot open the database ${quote(redactUrl(url))}: ${problem}`);
}
