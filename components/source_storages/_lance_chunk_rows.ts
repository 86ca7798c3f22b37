/**
 * An index's chunks as the Arrow table LanceDB adds to a chunks table, made
 * column by column. LanceDB's `makeArrowTable()` makes it row by row, each of
 * a vector's numbers through Arrow's builders, several times slower. The
 * columns are made with the classes of LanceDB's own copy of apache-arrow
 * (CommonJS, not the ES module this project imports), taken from a one-row
 * table it made: it keeps only the buffers of a table of another copy, and
 * so loses the numbers of its vectors, which Arrow holds in a child of the
 * column.
 * @module
 */
import type * as Lance from "npm:@lancedb/lancedb@0.31.0";
import type * as Arrow from "npm:apache-arrow@18.1.0";
import { batches, type NewIndex } from "../indexing/mod.ts";

// Chunks made into Arrow at a time; between them other requests may get their turn.
const BATCH_ROWS = 1024;

/** The constructors and types of LanceDB's copy of apache-arrow, for a schema of chunks. */
interface ArrowOfLance {
  schema: Arrow.Schema;
  table: new (schema: Arrow.Schema, data: unknown[]) => Arrow.Table;
  data: new (
    type: unknown,
    offset: number,
    length: number,
    nullCount: number,
    buffers: unknown[],
    children?: unknown[],
  ) => unknown;
  /** The type of a row (a struct of the columns), and of each column. */
  row: Arrow.DataType & { children: Arrow.Field[] };
}

// By the dimension of the vectors: the other columns are the same for all.
const ARROWS = new Map<number, ArrowOfLance>();

/**
 * The rows of `indexes` for a chunks table of `schema` (the columns `key`,
 * `ordinal`, `text`, `page_numbers`, `num_tokens` and `vector`, in this
 * order), the same as `makeArrowTable()` makes of them, index after index.
 */
export async function chunkRows(
  lancedb: typeof Lance,
  schema: Arrow.Schema,
  indexes: readonly NewIndex[],
): Promise<Arrow.Table> {
  const arrow = arrowOf(lancedb, schema);
  const [key, ordinal, text, pages, tokens, vector] = arrow.row.children.map((field) => field.type);
  const column = columnMaker(arrow);
  const data: unknown[] = [];
  for (const index of indexes) {
    for await (const { start, items: chunks } of batches(index.chunks, BATCH_ROWS)) {
      const numbers = new Float32Array(chunks.length * index.dimension);
      chunks.forEach((_, i) => numbers.set(index.vectors[start + i]!, i * index.dimension));
      const columns = [
        column.texts(key, chunks.map(() => index.key)),
        column.integers(ordinal, chunks.map((_, i) => start + i)),
        column.texts(text, chunks.map((chunk) => chunk.text)),
        column.texts(pages, chunks.map((chunk) => JSON.stringify(chunk.pageNumbers))),
        column.integers(tokens, chunks.map((chunk) => chunk.numTokens)),
        column.vectors(vector, numbers, chunks.length),
      ];
      data.push(new arrow.data(arrow.row, 0, chunks.length, 0, [], columns));
    }
  }
  return new arrow.table(arrow.schema, data);
}

function arrowOf(lancedb: typeof Lance, schema: Arrow.Schema): ArrowOfLance {
  const dimension = (schema.fields.at(-1)!.type as Arrow.FixedSizeList).listSize;
  let arrow = ARROWS.get(dimension);
  if (!arrow) {
    const template = lancedb.makeArrowTable([{
      key: "",
      ordinal: 0,
      text: "",
      page_numbers: "[]",
      num_tokens: 0,
      vector: new Float32Array(dimension),
    }], { schema });
    const { data } = template.batches[0]!;
    arrow = {
      schema: template.schema,
      table: template.constructor as ArrowOfLance["table"],
      data: data.constructor as ArrowOfLance["data"],
      row: data.type as ArrowOfLance["row"],
    };
    ARROWS.set(dimension, arrow);
  }
  return arrow;
}

function columnMaker({ data }: ArrowOfLance) {
  const encoder = new TextEncoder();
  return {
    texts(type: unknown, values: readonly string[]): unknown {
      const offsets = new Int32Array(values.length + 1);
      // A UTF-16 unit takes at most 3 bytes of UTF-8.
      const bytes = new Uint8Array(values.reduce((sum, value) => sum + 3 * value.length, 0));
      let end = 0;
      values.forEach((value, i) => {
        end += encoder.encodeInto(value, bytes.subarray(end)).written;
        offsets[i + 1] = end;
      });
      return new data(type, 0, values.length, 0, [offsets, bytes.subarray(0, end)]);
    },
    integers(type: unknown, values: readonly number[]): unknown {
      return new data(type, 0, values.length, 0, [undefined, Int32Array.from(values)]);
    },
    vectors(type: unknown, numbers: Float32Array, length: number): unknown {
      const [item] = (type as Arrow.FixedSizeList).children;
      const values = new data(item!.type, 0, numbers.length, 0, [undefined, numbers]);
      return new data(type, 0, length, 0, [], [values]);
    },
  };
}
