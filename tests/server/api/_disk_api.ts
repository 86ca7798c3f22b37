/**
 * The test API of `_api.ts` with its chats in a libSQL file on a small disk
 * (see tests/_disk.ts), so that a test can fill the disk under it. Its
 * sessions stay in its own database, which the disk does not hold. Not for a
 * replica set: its database is a file.
 * @module
 */
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { AnswerRuns } from "../../../server/api/answer_runs.ts";
import { LibsqlDatabase } from "../../../server/database/mod.ts";
import { migrate } from "../../../server/database/migrations.ts";
import type { SmallDisk } from "../../_disk.ts";
import { type TestApi, testApi, type TestApiOptions } from "./_api.ts";

/** The test API with its chats on `disk`; disposing of it closes both its databases. */
export async function apiOnSmallDisk(
  disk: SmallDisk,
  options: TestApiOptions = {},
): Promise<TestApi> {
  const path = join(disk.path, "svc.db");
  const client = createClient({ url: `file:${path}` });
  await migrate(client, { name: path });
  const database = new LibsqlDatabase(disk.client(client), { name: path });
  const api = await testApi(options);
  api.deps.database = database;
  api.deps.answers = new AnswerRuns({ database, log: api.deps.log });
  const dispose = api[Symbol.asyncDispose];
  api[Symbol.asyncDispose] = async () => {
    await api.deps.answers!.idle();
    await database.close();
    await dispose();
  };
  return api;
}
