/**
 * Uploaded files kept in PostgreSQL, in chunks of at most
 * {@linkcode FILE_CHUNK_BYTES}: streamed in from the file an upload wrote,
 * and out to a file where a replica that lacks it reads it, so that no
 * replica holds a whole file in memory.
 * @module
 */
import type * as Postgres from "npm:postgres@3.4.9";
import { dirname } from "node:path";
import { quote, SvcError } from "../../components/core/errors.ts";
import { diskFaultError } from "../../components/disk_faults.ts";
import type { StoredDocument } from "./records.ts";

/** The most bytes of a file in one row. */
export const FILE_CHUNK_BYTES = 1024 * 1024;

/**
 * Stores the file at `path` as the file of the document whose key is
 * `documentSeq`, inside the caller's transaction: whole once it commits, and
 * nothing of it if anything fails.
 *
 * @throws {SvcError} 409 when the document has its file already
 */
export async function keepFile(
  tx: Postgres.TransactionSql,
  documentSeq: number,
  id: string,
  path: string,
): Promise<void> {
  using file = await Deno.open(path);
  const { size } = await file.stat();
  // First, so that a second upload of the document waits for this one and is then refused.
  const [kept] = await tx`INSERT INTO document_file_sizes (document_seq, size)
    VALUES (${documentSeq}, ${size}) ON CONFLICT (document_seq) DO NOTHING RETURNING size`;
  if (kept === undefined) {
    throw new SvcError(
      `The document ${quote(id)} has its file already: register the document again to ` +
        "upload another file",
      { status: 409 },
    );
  }
  const buffer = new Uint8Array(FILE_CHUNK_BYTES);
  let written = 0;
  for (let position = 0;; position++) {
    const length = await readFull(file, buffer);
    if (length === 0) break;
    await tx`INSERT INTO document_files (document_seq, position, data)
      VALUES (${documentSeq}, ${position}, ${buffer.subarray(0, length)})`;
    written += length;
    if (length < buffer.length) break;
  }
  if (written !== size) {
    throw new SvcError(`The file of ${quote(id)} changed while it was stored`, { status: 409 });
  }
}

/** Whether the document with this id has its file in the database. */
export async function hasFile(sql: Postgres.Sql, id: string): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM document_file_sizes f
    JOIN documents d ON d.seq = f.document_seq WHERE d.id = ${id}`;
  return rows.length > 0;
}

/**
 * Writes the document's file from the database to `path` unless a file is
 * there already: chunk by chunk into a file of its own beside it, moved into
 * place once whole, so that a reader never sees part of it. Whether the
 * database keeps the document's file (if not, nothing is written).
 *
 * @throws {SvcError} 503 or 507 when the file cannot be written
 */
export async function fetchFile(
  sql: Postgres.Sql,
  document: StoredDocument,
  path: string,
): Promise<boolean> {
  const [stored] = await sql`SELECT f.document_seq, f.size FROM document_file_sizes f
    JOIN documents d ON d.seq = f.document_seq WHERE d.id = ${document.id}`;
  if (stored === undefined) return false;
  if (await exists(path)) return true;
  const partial = `${path}.${crypto.randomUUID()}.part`;
  try {
    await Deno.mkdir(dirname(path), { recursive: true });
    using file = await Deno.open(partial, { write: true, createNew: true, mode: 0o600 });
    // One chunk in memory at a time: the cursor fetches the rows one by one.
    const chunks = sql`SELECT data FROM document_files
      WHERE document_seq = ${stored.document_seq} ORDER BY position`.cursor(1);
    let written = 0;
    for await (const [row] of chunks) {
      const data = row!.data as Uint8Array;
      await writeFull(file, data);
      written += data.length;
    }
    if (written !== Number(stored.size)) {
      throw new SvcError(
        `The file of ${quote(document.name)} in the database has ${written} bytes, not ` +
          `${stored.size}: the connection ended before its end; try again`,
        { status: 503 },
      );
    }
    await Deno.rename(partial, path);
    return true;
  } catch (error) {
    await Deno.remove(partial).catch(() => {});
    if (error instanceof SvcError) throw error;
    // Another request of this replica wrote it meanwhile.
    if (await exists(path)) return true;
    throw diskFaultError(`Cannot write the file of ${quote(document.name)}`, error) ?? error;
  }
}

async function readFull(file: Deno.FsFile, buffer: Uint8Array): Promise<number> {
  let length = 0;
  while (length < buffer.length) {
    const read = await file.read(buffer.subarray(length));
    if (read === null) break;
    length += read;
  }
  return length;
}

async function writeFull(file: Deno.FsFile, data: Uint8Array): Promise<void> {
  for (let offset = 0; offset < data.length;) {
    offset += await file.write(data.subarray(offset));
  }
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}
