/**
 * Whether the tests' PostgreSQL has the pgvector extension installed, known
 * before any cluster starts, so that a test can be skipped where it is not
 * (a developer's machine without `.ci/setup-pgvector.sh`) and fail in CI.
 * @module
 */
import { findPostgres, postgresRequired } from "../_postgres.ts";

/** Whether Debian's PostgreSQL of `bin` (`/usr/lib/postgresql/15/bin`) has pgvector installed. */
export function pgvectorInstalled(bin: string | undefined = findPostgres()): boolean {
  if (bin === undefined) return false;
  const version = bin.split("/").at(-2);
  try {
    Deno.statSync(`/usr/share/postgresql/${version}/extension/vector.control`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether to skip a test that needs PostgreSQL, with pgvector when `vector`:
 * never in CI (`SVC_REQUIRE_POSTGRES=1`), where a missing one fails instead.
 */
export function skipPostgres(options: { vector: boolean }): boolean {
  if (postgresRequired()) return false;
  if (findPostgres() === undefined) return true;
  return options.vector && !pgvectorInstalled();
}
