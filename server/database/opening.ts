/**
 * Opening a database, whatever it is: its set-up within a time, and the
 * error of one that cannot be opened, told in svc's words.
 * @module
 */
import type { Client } from "@libsql/client";
import { quote, SvcError } from "../../components/core/errors.ts";
import { diskFaultError } from "../../components/disk_faults.ts";
import { redactUrls } from "../../components/core/redact_url.ts";
import { reason } from "./steps.ts";

/**
 * Runs `setUp` on a client just opened, within `timeout` milliseconds
 * (10 s by default), so that an unreachable server fails rather than hangs;
 * a failure closes the client and is told as `Cannot open the database ...`.
 */
export async function setUpWithin(
  client: Client,
  timeout: number | undefined,
  name: string,
  url: string,
  setUp: () => Promise<unknown>,
): Promise<void> {
  const ms = timeout ?? 10_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      setUp(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new SvcError(`no answer within ${ms / 1000} s`, { status: 503 })),
          ms,
        );
      }),
    ]);
  } catch (error) {
    client.close();
    throw cannotOpen(name, error, url);
  } finally {
    clearTimeout(timer);
  }
}

/** The error that opening the database `name` (from `url`) met, told in svc's words. */
export function cannotOpen(name: string, error: unknown, url: string): SvcError {
  // The migrations' own refusals already name the database and say what to do.
  if (error instanceof SvcError && error.message.startsWith("Cannot open the database")) {
    return error;
  }
  const fault = diskFaultError(`Cannot open the database ${quote(name)}`, error);
  if (fault) return fault;
  // The client may quote a part of the URL apart from it: its fragment, a value of its query.
  const why = redactUrls(reason(error), { secretsOf: [url] });
  return new SvcError(`Cannot open the database ${quote(name)}: ${why}`, {
    status: error instanceof SvcError ? error.status : 500,
    cause: error,
  });
}
