/**
 * The API's own database when it is PostgreSQL: the database that components
 * keeping their data in PostgreSQL (the Postgres source storage) use when
 * nothing names another. The deploy side sets it when its `database_url` is
 * a PostgreSQL URL; a script of the library leaves it unset.
 * @module
 */

let current: string | undefined;

/**
 * The PostgreSQL URL of the API's database, or undefined when the API's
 * database is not PostgreSQL (or there is no API in this process).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { apiPostgresUrl, setApiPostgresUrl } from "./api_database.ts";
 * setApiPostgresUrl("postgresql://svc@db.internal/svc");
 * assert.equal(apiPostgresUrl(), "postgresql://svc@db.internal/svc");
 * setApiPostgresUrl(undefined);
 * assert.equal(apiPostgresUrl(), undefined);
 * ```
 */
export function apiPostgresUrl(): string | undefined {
  return current;
}

/** Sets the URL {@linkcode apiPostgresUrl} gives; undefined unsets it. */
export function setApiPostgresUrl(url: string | undefined): void {
  current = url;
}
