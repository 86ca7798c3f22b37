/**
 * Whether the tests' PostgreSQL has the pgvector extension installed, known
 * before any cluster starts, so that a test can be skipped where it is not
 * (a developer's machine without `.ci/setup-pgvector.sh`) and fail in CI.
 * @module
 */
import { findPostgres, postgresRequired } from "../_postgres.ts";
import { unitTier } from "../_tier.ts";

/** The control file of pgvector for Debian's PostgreSQL of `bin` (`/usr/lib/postgresql/15/bin`). */
function controlFile(bin: string): string {
  return `/usr/share/postgresql/${bin.split("/").at(-2)}/extension/vector.control`;
}

/** Whether Debian's PostgreSQL of `bin` (`/usr/lib/postgresql/15/bin`) has pgvector installed. */
export function pgvectorInstalled(bin: string | undefined = findPostgres()): boolean {
  if (bin === undefined) return false;
  try {
    Deno.statSync(controlFile(bin));
    return true;
  } catch {
    return false;
  }
}

/**
 * What a test that needs PostgreSQL, with pgvector when `vector`, misses
 * where PostgreSQL's programs are in `bin`, and how to get it; `undefined`
 * when it misses nothing.
 */
export function missingPostgres(
  bin: string | undefined,
  options: { vector: boolean },
): string | undefined {
  if (bin === undefined) {
    return "no PostgreSQL in /usr/lib/postgresql/<version>/bin (apt-get install postgresql-15, " +
      "or set SVC_POSTGRES_BIN)";
  }
  if (options.vector && !pgvectorInstalled(bin)) {
    return `the PostgreSQL of ${bin} has no pgvector (no ${controlFile(bin)}): run ` +
      ".ci/setup-pgvector.sh as root to build it";
  }
  return undefined;
}

/**
 * Whether to skip the test `name`, which needs PostgreSQL, with pgvector when
 * `vector`: never in CI (`SVC_REQUIRE_POSTGRES=1`), where a missing one fails
 * instead. A skip says what is missing and how to get it; the unit tier, which
 * leaves the test out whatever is installed, says nothing.
 */
export function skipPostgres(name: string, options: { vector: boolean }): boolean {
  if (postgresRequired() || unitTier()) return false;
  const missing = missingPostgres(findPostgres(), options);
  if (missing === undefined) return false;
  console.warn(`Skipping "${name}": ${missing}; set SVC_REQUIRE_POSTGRES=1 to make this a failure`);
  return true;
}
