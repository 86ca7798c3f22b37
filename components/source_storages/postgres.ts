/**
 * The Postgres source storage, `svc.source_storages.Postgres`: indexes in a
 * PostgreSQL database, by default the API's own when that is PostgreSQL.
 * @module
 */
import type * as PostgresJs from "npm:postgres@3.4.9";
import { apiPostgresUrl } from "../core/api_database.ts";
import { quote, SvcError, unavailable } from "../core/errors.ts";
import { redactUrl } from "../core/redact_url.ts";
import { secrets } from "../core/secrets.ts";
import {
  envVar,
  EnvVarRequirement,
  PackageRequirement,
  type Requirement,
} from "../core/requirements.ts";
import { type IndexBackend, Openings } from "../indexing/mod.ts";
import { importPackage } from "../packages.ts";
import { connectionFaultWords, guardedPostgres, isConnectionFault } from "../postgres_guard.ts";
import { IndexedSourceStorage, type IndexedSourceStorageOptions } from "../retrieval/mod.ts";
import { PostgresBackend } from "./_postgres_backend.ts";

/** Options of {@linkcode Postgres}; it is constructed without any in a chat. */
export interface PostgresOptions extends IndexedSourceStorageOptions {
  /**
   * The database, a `postgresql://` (or `postgres://`) URL.
   * @default {Deno.env.get("SVC_POSTGRES_URL") ?? the API's database when it is PostgreSQL}
   */
  url?: string;
}

/** The variable that names the storage's database. */
export const POSTGRES_URL_ENV = "SVC_POSTGRES_URL";

// Connections of a process to one database; an idle one is closed after
// IDLE_SECONDS, so that a script ends soon after its last query.
const MAX_CONNECTIONS = 10;
const IDLE_SECONDS = 2;

interface Opened {
  sql: PostgresJs.Sql;
  backend: IndexBackend;
}

// One pool and backend per database in a process, shared by every instance.
const backends = new Openings<Opened>();

/**
 * An {@linkcode IndexedSourceStorage} in a PostgreSQL database: the chat's
 * chunks read at an index's first search and kept, and ranked in memory, as
 * the LibSQL, LanceDB and Chroma storages rank them with the same embedder;
 * any number of svc processes may share the database.
 *
 * The database is env `SVC_POSTGRES_URL`, else the API's own database when
 * its `database_url` is PostgreSQL. With the `vector` extension (pgvector) in
 * the database (`CREATE EXTENSION vector`, by its owner), vectors are kept as
 * pgvector's; without it, as the bytes of their numbers. Each index is
 * written in one transaction (a process that stops midway leaves nothing);
 * two processes storing the same document at once store it once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Postgres } from "@svc/svc/source_storages";
 * assert(new Postgres().displayName === "Postgres");
 * ```
 */
export class Postgres extends IndexedSourceStorage {
  static override displayName = "Postgres";
  readonly #url?: string;

  static override get requirements(): readonly Requirement[] {
    const url = postgresUrl();
    return [
      new PackageRequirement("postgres", () => importPackage("postgres")),
      url === undefined ? new EnvVarRequirement(POSTGRES_URL_ENV) : new DatabaseRequirement(url),
    ];
  }

  constructor(options: PostgresOptions = {}) {
    super(options);
    this.#url = options.url;
  }

  protected override async backend(): Promise<IndexBackend> {
    const url = postgresUrl(this.#url);
    if (url === undefined) {
      throw new SvcError(
        `The Postgres storage has no database: set ${POSTGRES_URL_ENV} to a postgresql:// URL, ` +
          `or use PostgreSQL as the API's database`,
        { status: 503 },
      );
    }
    const opened = await backends.get(JSON.stringify([url]), () => open(url));
    return opened.backend;
  }
}

/**
 * Closes the connections that this process's Postgres storages opened to a
 * database (to every database when `url` is not given); the next use opens
 * them again.
 */
export async function closePostgres(url?: string): Promise<void> {
  const closing: Promise<void>[] = [];
  for (const location of backends.locations()) {
    if (url !== undefined && JSON.parse(location)[0] !== url) continue;
    const opened = backends.delete(location);
    closing.push((async () => {
      const sql = await opened?.then((each) => each.sql, () => undefined);
      await sql?.end({ timeout: 5 });
    })());
  }
  await Promise.all(closing);
}

/** The storage's database: the one given, else `SVC_POSTGRES_URL`, else the API's. */
function postgresUrl(url = envVar(POSTGRES_URL_ENV) || apiPostgresUrl()): string | undefined {
  return url || undefined;
}

async function open(url: string): Promise<Opened> {
  const name = redactUrl(url);
  secrets.addUrl(url);
  let sql: PostgresJs.Sql | undefined;
  try {
    if (!/^postgres(ql)?:\/\//i.test(url)) {
      throw new SvcError(
        `Cannot open the Postgres database ${quote(name)}: it is not a postgresql:// URL`,
        { status: 503 },
      );
    }
    sql = await connect(url);
    return { sql, backend: outagesAs503(await PostgresBackend.open(sql), name) };
  } catch (error) {
    await sql?.end({ timeout: 1 }).catch(() => {});
    if (error instanceof SvcError) throw error;
    throw unavailable(`Cannot open the Postgres database ${quote(name)}`, error, url);
  }
}

/**
 * The backend, whose failures of the connection to its database are 503
 * sentences naming the database: an outage, not a fault of the request.
 * Every method is wrapped, those the contract gains included.
 */
function outagesAs503(backend: IndexBackend, name: string): IndexBackend {
  return new Proxy(backend, {
    get(target, method) {
      const value = Reflect.get(target, method);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) =>
        value.apply(target, args).catch((error: unknown) => {
          if (!isConnectionFault(error)) throw error;
          const why = connectionFaultWords(error) ?? (error as Error).message;
          throw new SvcError(`Cannot reach the Postgres database ${quote(name)}: ${why}`, {
            status: 503,
            cause: error,
          });
        });
    },
  });
}

async function connect(
  url: string,
  options: PostgresJs.Options<never> = {},
): Promise<PostgresJs.Sql> {
  return await guardedPostgres(url, {
    max: MAX_CONNECTIONS,
    idle_timeout: IDLE_SECONDS,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { application_name: "svc" },
    ...options,
  });
}

/** A PostgreSQL database that must answer a query. */
class DatabaseRequirement implements Requirement {
  readonly kind = "server";
  readonly name: string;
  readonly #url: string;

  constructor(url: string) {
    this.#url = url;
    this.name = `PostgreSQL at ${quote(redactUrl(url))}`;
  }

  async isAvailable(): Promise<boolean> {
    let sql: PostgresJs.Sql | undefined;
    try {
      sql = await connect(this.#url, { max: 1, connect_timeout: 2 });
      await sql`SELECT 1`;
      return true;
    } catch {
      return false;
    } finally {
      await sql?.end({ timeout: 1 }).catch(() => {});
    }
  }
}
