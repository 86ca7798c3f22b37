/**
 * Giving disk space back in the SQLite files of svc (the API's `svc.db` and
 * LibSQL's `sources.db`). SQLite keeps the pages of deleted rows for later
 * rows and its write-ahead log at its largest size, so without this a
 * database never shrinks: deleting every chat would give nothing back.
 * @module
 */
import type { Client } from "@libsql/client";

/**
 * Makes the database give its free pages back on {@linkcode reclaimSpace}
 * (SQLite's incremental auto-vacuum). Must run before anything else writes to
 * a new file, and before `journal_mode = WAL`: a new database takes the mode
 * at once. A database made without it is rewritten once (`VACUUM`), which
 * needs as much free space as the database takes and holds the client for as
 * long as it runs; when that fails (a full disk), the database stays as it
 * was and is rewritten on the next open.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createClient } from "@libsql/client";
 * import { useIncrementalVacuum } from "./sqlite_space.ts";
 * const client = createClient({ url: ":memory:" });
 * await useIncrementalVacuum(client);
 * assert.equal((await client.execute("PRAGMA auto_vacuum")).rows[0]?.auto_vacuum, 2);
 * client.close();
 * ```
 */
export async function useIncrementalVacuum(client: Client): Promise<void> {
  const incremental = 2;
  const mode = async () => Number((await client.execute("PRAGMA auto_vacuum")).rows[0]?.[0]);
  if (await mode() === incremental) return;
  await client.execute("PRAGMA auto_vacuum = INCREMENTAL");
  if (await mode() === incremental) return;
  await client.execute("VACUUM").catch(() => {});
}

/**
 * Gives the free pages of the database back to the disk and empties its
 * write-ahead log: after deletions, so that deleting gives space back. Best
 * effort: a database that cannot do it now (busy readers, a full disk) keeps
 * its pages for its next rows and gives them back after a later deletion.
 *
 * @example
 * ```ts
 * import { createClient } from "@libsql/client";
 * import { reclaimSpace } from "./sqlite_space.ts";
 * const client = createClient({ url: ":memory:" });
 * await reclaimSpace(client);
 * client.close();
 * ```
 */
export async function reclaimSpace(client: Client): Promise<void> {
  try {
    // Emptied first, so that the vacuum's own writes have the log's space.
    await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    // Stepped to its end by executeMultiple: execute() would step it once, freeing one page.
    await client.executeMultiple("PRAGMA incremental_vacuum;");
    await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  } catch {
    // Nothing was lost: the pages stay free inside the file.
  }
}
