import assert from "node:assert/strict";
import { copyFile, mkdir } from "node:fs/promises";
import { createClient } from "@libsql/client";
import { LocalDocument } from "../../components/core/document.ts";
import { SvcError } from "../../components/core/errors.ts";
import { shareIndexesFromEnv } from "../../components/source_storages/_indexed.ts";
import { LibSQL } from "../../components/source_storages/libsql.ts";
import { tmpDir } from "../test_utils.ts";
import { chatParams, copiedFixture } from "./_helpers.ts";

/** How many indexes the database holds, and how many chat links. */
async function stored(path: string): Promise<{ indexes: number; links: number }> {
  const client = createClient({ url: `file:${path}` });
  try {
    const count = async (table: string) =>
      Number((await client.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
    return { indexes: await count("rag_indexes"), links: await count("rag_links") };
  } finally {
    client.close();
  }
}

/** Ada and Bob each store the same bytes, as a document of their own, in two chats each. */
async function adaAndBob(folder: string, storage: LibSQL): Promise<void> {
  const adas = await copiedFixture(folder, "report.pdf");
  await mkdir(`${folder}/bob`);
  await copyFile(adas.path, `${folder}/bob/report.pdf`);
  const bobs = LocalDocument.fromPath(`${folder}/bob/report.pdf`, { id: "bobs-report" });
  for (const [user, document] of [["ada", adas], ["bob", bobs]] as const) {
    for (const chat of [1, 2]) {
      await storage.store([document], { ...chatParams(`${user}-${chat}`), user });
    }
  }
}

Deno.test("an indexed storage indexes the same content once per user by default", async () => {
  await using folder = await tmpDir();
  const path = `${folder.path}/sources.db`;
  await adaAndBob(folder.path, new LibSQL({ url: `file:${path}` }));
  assert.deepEqual(await stored(path), { indexes: 2, links: 4 });
});

Deno.test("an indexed storage told to share indexes indexes the same content once for all users", async () => {
  await using folder = await tmpDir();
  const path = `${folder.path}/sources.db`;
  await adaAndBob(folder.path, new LibSQL({ url: `file:${path}`, shareIndexes: true }));
  assert.deepEqual(await stored(path), { indexes: 1, links: 4 });
});

Deno.test("shareIndexesFromEnv() reads true and false words, off when unset", () => {
  for (const value of ["true", "1", "yes", "on", " TRUE "]) {
    assert.equal(shareIndexesFromEnv(value), true, value);
  }
  for (const value of [undefined, "", "false", "0", "no", "off", "Off"]) {
    assert.equal(shareIndexesFromEnv(value), false, String(value));
  }
  assert.throws(
    () => shareIndexesFromEnv("maybe"),
    (error) =>
      error instanceof SvcError &&
      error.message ===
        'The environment variable "SVC_SHARE_INDEXES" must be "true" or "false", not "maybe"',
  );
});
