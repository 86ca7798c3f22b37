/**
 * What the LanceDB storage reads of its chunks for retrieval: the chunks of
 * indexes a search first needs (with their vectors, and the postings kept of
 * each), the passages a search does not keep, and an index's chunks for the
 * page ranking.
 * @module
 */
import type * as Lance from "npm:@lancedb/lancedb@0.31.0";
import {
  type ChunkAt,
  type ReadIndex,
  type StoredPassage,
  storedPassage,
} from "../retrieval/mod.ts";
import { type StoredChunk, storedChunk } from "../indexing/mod.ts";
import { type LanceTables, literal, type Row } from "./_lancedb_tables.ts";

const CHUNK_COLUMNS = ["key", "ordinal", "text", "page_numbers", "num_tokens"];

/** The row id of a chunk not read yet: found by key and ordinal. */
export const UNREAD_ROW = -1n;

/**
 * The chunks of the indexes under the keys `group`, with the postings kept of each when asked for
 * (built by a first search before: an index's postings depend on its texts alone, which its key
 * names).
 */
export async function* readIndexes(
  tables: LanceTables,
  group: readonly string[],
  dimension: number,
  withPostings: boolean,
): AsyncGenerator<ReadIndex<string, BigInt64Array>> {
  const chunks = await tables.table(`chunks_${dimension}`);
  const where = `key IN (${group.map(literal).join(", ")})`;
  // A folder from before the table, on a disk that cannot make it now, still searches.
  const postings = withPostings ? await tables.rows("postings", where).catch(() => []) : [];
  const termsOf = new Map(postings.map((row) => [String(row.key), row.data as Uint8Array]));
  const rows = await chunks.query().where(where)
    .select([...CHUNK_COLUMNS, "vector"]).withRowId().toArray();
  const byKey = new Map(group.map((key) => [key, [] as typeof rows]));
  for (const row of rows) byKey.get(row.key)?.push(row);
  for (const [key, own] of byKey) {
    own.sort((a, b) => Number(a.ordinal) - Number(b.ordinal));
    yield {
      id: key,
      passages: own.map((row) => storedPassage(row, row.vector.toArray() as Float32Array)),
      postings: termsOf.get(key),
      extra: BigInt64Array.from(own, (row) => BigInt(row._rowid)),
    };
  }
}

/** The passages, with their vectors, of chunks that search does not keep. */
export async function passagesAt(
  tables: LanceTables,
  chunks: readonly ChunkAt<string, BigInt64Array>[],
  dimension: number,
): Promise<(StoredPassage | undefined)[]> {
  const rows = await rowsAt(
    await tables.table(`chunks_${dimension}`),
    chunks.map((chunk) => ({ ...chunk, rowId: chunk.extra[chunk.chunk]! })),
    // Row ids that changed (a compaction rewrote their files): kept for the next question.
    (i, rowId) => chunks[i]!.extra[chunks[i]!.chunk] = rowId,
  );
  return chunks.map((chunk) => {
    const row = rows.get(`${chunk.key}/${chunk.ordinal}`);
    return row && storedPassage(row, row.vector.toArray() as Float32Array);
  });
}

/**
 * The rows of the chunks at `places`, with their vectors, by key and ordinal: taken by the row
 * ids read with them (faster than by key and ordinal), those not found so by key and ordinal,
 * their new row ids given to `moved` with their place's number: a compaction rewrites the files
 * of the rows it keeps, under new ids.
 */
async function rowsAt(
  chunks: Lance.Table,
  places: readonly { key: string; ordinal: number; rowId: bigint }[],
  moved: (i: number, rowId: bigint) => void,
): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  if (places.length === 0) return rows;
  const named = (key: unknown, ordinal: unknown) => `${key}/${ordinal}`;
  const read = places.filter((place) => place.rowId !== UNREAD_ROW);
  try {
    const taken = read.length === 0 ? [] : await chunks.takeRowIds(read.map((place) => place.rowId))
      .select([...CHUNK_COLUMNS, "vector"]).toArray();
    // A row id of a file compacted away names no row, or another's: each row taken is checked.
    for (const row of taken) rows.set(named(row.key, row.ordinal), row);
  } catch {
    // Ids of files a compaction removed: all found by key and ordinal below.
  }
  const missing = [...places.keys()].filter((i) => {
    const { key, ordinal } = places[i]!;
    return !rows.has(named(key, ordinal));
  });
  if (missing.length === 0) return rows;
  const number = new Map(missing.map((i) => [named(places[i]!.key, places[i]!.ordinal), i]));
  // The B-tree finds the keys; one list names the chunks (a disjunction of a condition per
  // document made LanceDB test every row of the table against it).
  const where =
    `key IN (${[...new Set(missing.map((i) => places[i]!.key))].map(literal).join(", ")})` +
    ` AND concat(key, '/', CAST(CAST(ordinal AS BIGINT) AS VARCHAR)) IN (${
      [...number.keys()].map(literal).join(", ")
    })`;
  const found = await chunks.query().where(where).select([...CHUNK_COLUMNS, "vector"]).withRowId()
    .toArray();
  for (const row of found) {
    const name = named(row.key, row.ordinal);
    rows.set(name, row);
    moved(number.get(name)!, BigInt(row._rowid));
  }
  return rows;
}

/** The chunks of the index under `key` of `dimension`, in order. */
export async function chunksOf(
  tables: LanceTables,
  key: string,
  dimension: number,
): Promise<StoredChunk[]> {
  const rows = await (await tables.table(`chunks_${dimension}`)).query()
    .where(`key = ${literal(key)}`).select(CHUNK_COLUMNS).toArray();
  return rows.map((row) => storedChunk(key, row)).sort((a, b) => a.ordinal - b.ordinal);
}
