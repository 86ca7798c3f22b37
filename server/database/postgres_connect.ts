/**
 * Opening a PostgreSQL database that `database_url` names, and bringing its
 * schema up to date.
 * @module
 */
import { quote, SvcError } from "../../components/core/errors.ts";
import { redactUrl, redactUrls } from "../../components/core/redact_url.ts";
import { secrets } from "../../components/core/secrets.ts";
import { guardedPostgres } from "../../components/postgres_guard.ts";
import { PostgresDatabase } from "./postgres.ts";
import { postgresError } from "./postgres_errors.ts";
import { migratePostgres } from "./postgres_migrations.ts";
import { reason } from "./steps.ts";

/** Options of {@linkcode openPostgres}. */
export interface OpenPostgresOptions {
  /**
   * How long opening may wait for the server, in milliseconds.
   * @default {10000}
   */
  timeout?: number;
  /**
   * The most connections this process opens.
   * @default {10}
   */
  connections?: number;
  /** The folder of this process's copies of the uploaded files kept in the database. */
  files: string;
}

/**
 * Connects to the PostgreSQL database of `url` (`postgresql://` or
 * `postgres://`; the password may come from env `PGPASSWORD`) and applies
 * the migrations it lacks, under a lock that replicas starting at once share.
 *
 * @throws {SvcError} 503 naming the database when the server does not answer
 * in time; the migrations' refusals as they are
 */
export async function openPostgres(
  url: string,
  options: OpenPostgresOptions,
): Promise<PostgresDatabase> {
  const name = redactUrl(url);
  secrets.addUrl(url);
  const timeout = options.timeout ?? 10_000;
  const connecting = guardedPostgres(url, {
    max: options.connections ?? 10,
    connect_timeout: Math.max(1, Math.ceil(timeout / 1000)),
    onnotice: () => {},
    // svc turns numbers and JSON itself, so that rows read alike on libSQL.
    transform: { undefined: null },
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      connecting.then((sql) => migratePostgres(sql, { name })),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new SvcError(`no answer within ${timeout / 1000} s`, { status: 503 })),
          timeout,
        );
      }),
    ]);
  } catch (error) {
    // A client that connects after the deadline is closed as soon as it does.
    void connecting.then((sql) => sql.end({ timeout: 0 })).catch(() => {});
    throw cannotOpen(name, error, url);
  } finally {
    clearTimeout(timer);
  }
  const sql = await connecting;
  return new PostgresDatabase(sql, name, options.files);
}

function cannotOpen(name: string, error: unknown, url: string): SvcError {
  if (error instanceof SvcError && error.message.startsWith("Cannot open the database")) {
    return error;
  }
  const status = error instanceof SvcError
    ? error.status
    : postgresError("", error).status === 500
    ? 500
    : 503;
  const why = redactUrls(reason(error), { secretsOf: [url] });
  return new SvcError(`Cannot open the database ${quote(name)}: ${why}`, { status, cause: error });
}
