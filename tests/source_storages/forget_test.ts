import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { LibSQL } from "../../components/source_storages/libsql.ts";
import { closePostgres, Postgres } from "../../components/source_storages/postgres.ts";
import { connect, postgresTest } from "../_postgres.ts";
import { skipPostgres } from "./_pgvector.ts";
import { tmpLocalRoot } from "../test_utils.ts";
import { chatParams, copiedFixture } from "./_helpers.ts";

/** Row counts of the links and indexes of the storage's database in the local root. */
async function counts(root: string): Promise<{ links: number; indexes: number }> {
  const client = createClient({ url: `file:${root}/libsql/sources.db` });
  try {
    const count = async (table: string) =>
      Number((await client.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
    return { links: await count("rag_links"), indexes: await count("rag_indexes") };
  } finally {
    client.close();
  }
}

Deno.test("LibSQL.forget() unlinks one document of a chat, and removes its index with the last chat that had it", async () => {
  await using root = await tmpLocalRoot();
  const report = await copiedFixture(root.path, "report.pdf");
  const guide = await copiedFixture(root.path, "guide.md");
  const storage = new LibSQL();
  await storage.store([report, guide], chatParams("first"));
  await storage.store([report], chatParams("second"));
  assert.deepEqual(await counts(root.path), { links: 3, indexes: 2 });

  await storage.forget(guide, chatParams("first"));
  assert.deepEqual(await counts(root.path), { links: 2, indexes: 1 }, "the guide's index went");
  await storage.forget(report, chatParams("first"));
  assert.deepEqual(await counts(root.path), { links: 1, indexes: 1 }, "the second chat keeps it");
  await storage.forget(report, chatParams("first"));
  assert.deepEqual(
    await counts(root.path),
    { links: 1, indexes: 1 },
    "forgetting twice is nothing",
  );

  // The chat's other document is still found, and the forgotten one is stored again if asked for.
  const sources = await storage.retrieve([report], "revenue", chatParams("second"));
  assert.ok(sources.length > 0);
  assert.ok(sources.every((source) => source.document.id === report.id));
});

postgresTest(
  "Postgres.forget() unlinks one document of a chat, and removes its index with the last chat that had it",
  async (database) => {
    try {
      await using root = await tmpLocalRoot();
      const report = await copiedFixture(root.path, "report.pdf");
      const guide = await copiedFixture(root.path, "guide.md");
      const storage = new Postgres({ url: database.url });
      const sql = await connect(database.url);
      const counts = async () => {
        const [row] = await sql`SELECT (SELECT count(*) FROM rag_links)::int AS links,
          (SELECT count(*) FROM rag_indexes)::int AS indexes`;
        return { links: row!.links, indexes: row!.indexes };
      };
      try {
        await storage.store([report, guide], chatParams("first"));
        await storage.store([report], chatParams("second"));
        assert.deepEqual(await counts(), { links: 3, indexes: 2 });

        await storage.forget(guide, chatParams("first"));
        assert.deepEqual(await counts(), { links: 2, indexes: 1 }, "the guide's index went");
        await storage.forget(report, chatParams("first"));
        assert.deepEqual(await counts(), { links: 1, indexes: 1 }, "the second chat keeps it");
        await storage.forget(report, chatParams("first"));
        assert.deepEqual(await counts(), { links: 1, indexes: 1 }, "forgetting twice is nothing");

        const sources = await storage.retrieve([report], "revenue", chatParams("second"));
        assert.ok(sources.length > 0);
        assert.ok(sources.every((source) => source.document.id === report.id));
      } finally {
        await sql.end({ timeout: 5 });
      }
    } finally {
      await closePostgres(database.url);
    }
  },
  { vector: false, ignore: skipPostgres("Postgres.forget()", { vector: false }) },
);
