import assert from "node:assert/strict";
import * as lancedb from "npm:@lancedb/lancedb@0.31.0";
import * as arrow from "npm:apache-arrow@18.1.0";
import { chunkRows } from "../../components/source_storages/_lance_chunk_rows.ts";
import type { NewIndex } from "../../components/indexing/mod.ts";

const DIMENSION = 3;

function chunksSchema(): arrow.Schema {
  const text = (name: string) => new arrow.Field(name, new arrow.Utf8(), false);
  const integer = (name: string) => new arrow.Field(name, new arrow.Int32(), false);
  const item = new arrow.Field("item", new arrow.Float32());
  return new arrow.Schema([
    text("key"),
    integer("ordinal"),
    text("text"),
    text("page_numbers"),
    integer("num_tokens"),
    new arrow.Field("vector", new arrow.FixedSizeList(DIMENSION, item), false),
  ]);
}

/** An index of `size` chunks, some texts beyond ASCII, with vectors that tell the chunks apart. */
function newIndex(size: number): NewIndex {
  const texts = ["Crème brûlée, 3 € — naïve café", "Ünïcödé 🍞 and rye", "", "plain"];
  return {
    key: "index-key-ü",
    contentHash: "hash",
    chunkSize: 500,
    chunkOverlap: 100,
    embedder: "test",
    dimension: DIMENSION,
    chunks: Array.from({ length: size }, (_, i) => ({
      text: `${texts[i % texts.length]} ${i}`,
      pageNumbers: i % 3 === 0 ? [] : [i, i + 1],
      numTokens: 7 * i,
    })),
    vectors: Array.from({ length: size }, (_, i) => Float32Array.of(i, -i / 3, 0.1 + i)),
  };
}

async function addedRows(rows: (table: lancedb.Table) => Promise<void>) {
  const folder = await Deno.makeTempDir();
  const db = await lancedb.connect(folder);
  try {
    const table = await db.createEmptyTable("chunks", chunksSchema());
    await rows(table);
    const stored = await table.query().toArray();
    return stored
      .map((row) => ({
        key: row.key,
        ordinal: row.ordinal,
        text: row.text,
        page_numbers: row.page_numbers,
        num_tokens: row.num_tokens,
        vector: [...row.vector.toArray()],
      }))
      .sort((a, b) => a.key.localeCompare(b.key) || a.ordinal - b.ordinal);
  } finally {
    db.close();
    await Deno.remove(folder, { recursive: true });
  }
}

Deno.test("chunkRows() gives LanceDB the rows its own makeArrowTable() gives, in several batches", async () => {
  // More chunks than one batch holds (1,024), then another index.
  const indexes = [newIndex(1030), { ...newIndex(3), key: "another" }];
  const made = await addedRows(async (table) => {
    await table.add(await chunkRows(lancedb, chunksSchema(), indexes));
  });
  const expected = await addedRows(async (table) => {
    await table.add(lancedb.makeArrowTable(
      indexes.flatMap((index) =>
        index.chunks.map((chunk, i) => ({
          key: index.key,
          ordinal: i,
          text: chunk.text,
          page_numbers: JSON.stringify(chunk.pageNumbers),
          num_tokens: chunk.numTokens,
          vector: index.vectors[i]!,
        }))
      ),
      { schema: chunksSchema() },
    ));
  });
  assert.equal(made.length, 1033);
  assert.deepEqual(made.slice(0, 3).map((row) => [row.key, row.ordinal]), [
    ["another", 0],
    ["another", 1],
    ["another", 2],
  ]);
  assert.deepEqual(made, expected);
  assert.deepEqual(made[4], {
    key: "index-key-ü",
    ordinal: 1,
    text: "Ünïcödé 🍞 and rye 1",
    page_numbers: "[1,2]",
    num_tokens: 7,
    vector: [1, Math.fround(-1 / 3), Math.fround(1.1)],
  });
});
