/**
 * The vectors of the Postgres source storage as PostgreSQL keeps them: with
 * pgvector, its `vector` (read and written in its binary form); without it,
 * the bytes of their float32 values. They are written by a binary COPY, each
 * vector as its bytes: a text of its numbers (pgvector's `[0.5,1]`, or hex)
 * cost the main thread more to make, escape and collect than all else a store
 * does.
 * @module
 */

/** How a table of vectors keeps them: pgvector's type (with its schema), or bytes. */
export type VectorKind = { pgvector: string } | { pgvector: undefined };

// Vectors per message of a binary COPY: some hundreds of kilobytes.
const COPY_ROWS = 128;

/**
 * A vector from its bytes: pgvector's binary form (two 16-bit numbers, the
 * dimension and one unused, then each value, all big-endian), else the bytes
 * of its float32 values as svc wrote them (little-endian).
 */
export function vectorOf(bytes: Uint8Array, kind: VectorKind, dimension: number): Float32Array {
  const vector = new Float32Array(dimension);
  if (kind.pgvector === undefined) {
    new Uint8Array(vector.buffer).set(bytes.subarray(0, vector.byteLength));
    return vector;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < dimension; i++) vector[i] = view.getFloat32(4 + 4 * i);
  return vector;
}

/** PostgreSQL's binary COPY begins with this signature, its flags and the length of its extension. */
const COPY_HEADER = new Uint8Array([
  ...[0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00], // PGCOPY\n\xff\r\n\0
  ...[0, 0, 0, 0, 0, 0, 0, 0],
]);

/**
 * The rows of an index's vectors in PostgreSQL's binary COPY format, some
 * hundreds at a time: the index's id (bigint), the ordinal (integer) and the
 * vector, as pgvector's binary form (its dimension, a zero and each value as
 * big-endian float32) or as the bytes of its float32 values in the machine's
 * order (little-endian), which svc reads back.
 */
export function* copyRows(
  id: bigint,
  vectors: readonly Float32Array[],
  kind: VectorKind,
): Generator<Uint8Array> {
  const dimension = vectors[0]!.length;
  const vectorSize = (kind.pgvector === undefined ? 0 : 4) + 4 * dimension;
  const rowSize = 2 + (4 + 8) + (4 + 4) + (4 + vectorSize);
  yield COPY_HEADER;
  for (let start = 0; start < vectors.length; start += COPY_ROWS) {
    const batch = vectors.slice(start, start + COPY_ROWS);
    const last = start + batch.length === vectors.length;
    const bytes = new Uint8Array(batch.length * rowSize + (last ? 2 : 0));
    const view = new DataView(bytes.buffer);
    batch.forEach((vector, i) => {
      let at = i * rowSize;
      view.setInt16(at, 3);
      view.setInt32(at + 2, 8);
      view.setBigInt64(at + 6, id);
      view.setInt32(at + 14, 4);
      view.setInt32(at + 18, start + i);
      view.setInt32(at + 22, vectorSize);
      at += 26;
      if (kind.pgvector === undefined) {
        bytes.set(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength), at);
        return;
      }
      view.setInt16(at, dimension);
      view.setInt16(at + 2, 0);
      for (let d = 0; d < dimension; d++) view.setFloat32(at + 4 + 4 * d, vector[d]!);
    });
    // The end of the rows.
    if (last) view.setInt16(bytes.length - 2, -1);
    yield bytes;
  }
}
