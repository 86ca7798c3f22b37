/**
 * The SQL of documents: storing one, finding a user's by id, listing a user's,
 * the bytes of the files a user uploaded, each recorded in its document's
 * metadata as `size` (and its pages, once read, as `pages`), and removing a
 * document no chat uses, with its file.
 * @module
 */
import type { InStatement, ResultSet, Row, Transaction } from "@libsql/client";
import { quote, SvcError } from "../../components/core/errors.ts";
import { diskFaultError } from "../../components/disk_faults.ts";
import type { DocumentListing, StoredDocument } from "./records.ts";
import { runSteps, type Step } from "./steps.ts";

/**
 * How a document's registration is counted: when it is made, and how many
 * of the user's registrations may wait for their file. A registration waits
 * from its `POST /document` until its upload records its size; one that can
 * no longer get its file is removed.
 */
export interface AddDocumentOptions {
  /**
   * When the document is registered, in seconds since the epoch.
   * @default {now}
   */
  now?: number;
  /**
   * The most registrations of the user made since `countedSince` that may
   * wait for their file; past it, the document is not stored.
   * @default {no limit}
   */
  maxPending?: number;
  /** From when (seconds) a waiting registration counts: since its upload can still start. */
  countedSince?: number;
  /**
   * Registrations made before this time (seconds) whose file never came,
   * and that no chat uses, are removed: their upload can be neither started
   * nor under way.
   * @default {none are removed}
   */
  expireBefore?: number;
}

/** What {@linkcode insertDocument} did. */
export interface AddedDocument {
  /** Whether the document was stored. */
  added: boolean;
  /** The user's registrations that wait for their file and count, before this one. */
  pending: number;
  /** When the oldest of them was made (seconds), when there is one. */
  oldestPending?: number;
}

// A registration that waits for its file: its upload has not recorded a size.
const WAITING = "json_extract(metadata, '$.size') IS NULL AND registered IS NOT NULL";

/**
 * Stores a document of the user whose key is `userSeq`, unless as many of
 * the user's registrations wait for their file as allowed; the waiting
 * registrations that expired go first.
 */
export async function insertDocument(
  tx: Transaction,
  userSeq: number,
  document: StoredDocument,
  options: AddDocumentOptions = {},
): Promise<AddedDocument> {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (options.expireBefore !== undefined) {
    await tx.execute({
      sql: `DELETE FROM documents WHERE user_seq = ? AND ${WAITING} AND registered < ?
        AND NOT EXISTS (SELECT 1 FROM chat_documents c WHERE c.document_seq = documents.seq)
        AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.document_seq = documents.seq)`,
      args: [userSeq, options.expireBefore],
    });
  }
  let pending = 0;
  let oldestPending: number | undefined;
  if (options.maxPending !== undefined) {
    const { rows } = await tx.execute({
      sql: `SELECT count(*) AS pending, min(registered) AS oldest FROM documents
        WHERE user_seq = ? AND ${WAITING} AND registered >= ?`,
      args: [userSeq, options.countedSince ?? 0],
    });
    pending = Number(rows[0]?.pending ?? 0);
    oldestPending = rows[0]?.oldest == null ? undefined : Number(rows[0].oldest);
    if (pending >= options.maxPending) return { added: false, pending, oldestPending };
  }
  await runSteps(tx, [{
    sql: "INSERT INTO documents (id, user_seq, name, metadata, registered) VALUES (?, ?, ?, ?, ?)",
    args: [document.id, userSeq, document.name, JSON.stringify(document.metadata), now],
    action: `save document ${quote(document.id)}`,
  }]);
  return { added: true, pending, oldestPending };
}

/**
 * The query for the user's documents among `ids`; read it with
 * {@linkcode documentsInOrder}. The ids go in as one JSON array, which keeps
 * the statement the same whatever their number.
 */
export function selectDocuments(user: string, ids: string[]): InStatement {
  const unique = [...new Set(ids)];
  return {
    sql: `SELECT d.id, d.name, d.metadata FROM documents d
      WHERE d.user_seq = (SELECT seq FROM users WHERE name = ?)
        AND d.id IN (SELECT value FROM json_each(?))`,
    args: [user, JSON.stringify(unique)],
  };
}

/** The documents of {@linkcode selectDocuments} in the order of `ids`; 404 naming every missing one. */
export function documentsInOrder(result: ResultSet, ids: string[]): StoredDocument[] {
  const found = new Map(result.rows.map((row) => [String(row.id), toDocument(row)]));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) throw noDocuments(missing);
  // A copy per place, so that callers may change one without changing another.
  return ids.map((id) => structuredClone(found.get(id)!));
}

/**
 * The keys of the user's documents among `ids`, inside a write; 404 naming
 * every id that is missing or another user's.
 */
export async function documentSeqs(
  tx: Transaction,
  userSeq: number,
  ids: Iterable<string>,
): Promise<Map<string, number>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const { rows } = await tx.execute({
    sql: `SELECT id, seq FROM documents
      WHERE user_seq = ? AND id IN (SELECT value FROM json_each(?))`,
    args: [userSeq, JSON.stringify(unique)],
  });
  const seqs = new Map(rows.map((row) => [String(row.id), Number(row.seq)]));
  const missing = unique.filter((id) => !seqs.has(id));
  if (missing.length > 0) throw noDocuments(missing);
  return seqs;
}

/** The query for the bytes of the user's uploaded files: one row, `used`. */
export function storageQuery(user: string): InStatement {
  return {
    sql: `SELECT COALESCE(SUM(json_extract(metadata, '$.size')), 0) AS used FROM documents
      WHERE user_seq = (SELECT seq FROM users WHERE name = ?)`,
    args: [user],
  };
}

/** What {@linkcode recordSize} did. */
export interface RecordedSize {
  /** Whether the size was recorded: the user's documents stay within the limit. */
  recorded: boolean;
  /** The bytes of the user's other uploaded files. */
  used: number;
}

/**
 * Records the size of the file uploaded for the user's document, inside a
 * write, unless the user's files would then take more than `maxTotal` bytes.
 * A document uploaded again counts once, with its new size.
 *
 * @throws {SvcError} 404 for a document that is missing or another user's
 */
export async function recordSize(
  tx: Transaction,
  userSeq: number,
  id: string,
  size: number,
  maxTotal: number,
): Promise<RecordedSize> {
  const { rows } = await tx.execute({
    sql: `SELECT COALESCE(SUM(json_extract(metadata, '$.size')), 0) AS used FROM documents
      WHERE user_seq = ? AND id != ?`,
    args: [userSeq, id],
  });
  const used = Number(rows[0]?.used ?? 0);
  if (used + size > maxTotal) return { recorded: false, used };
  const updated = await tx.execute({
    sql:
      "UPDATE documents SET metadata = json_set(metadata, '$.size', ?) WHERE user_seq = ? AND id = ?",
    args: [size, userSeq, id],
  });
  if (updated.rowsAffected === 0) throw noDocuments([id]);
  return { recorded: true, used };
}

// Chats named in a refusal; the rest are counted.
const NAMED_CHATS = 5;

/**
 * Removes the user's document, inside a write, unless a chat uses it: as one
 * of its documents, or through a source of one of its messages. Its file (its
 * metadata's `path`) is removed last, so that a file that cannot be removed
 * undoes the whole write.
 *
 * @throws {SvcError} 404 for a document that is missing or another user's;
 * 409 naming the chats that use it; 503 or 507 when its file cannot be removed
 */
export async function removeDocument(
  tx: Transaction,
  user: string,
  id: string,
): Promise<StoredDocument> {
  const { rows } = await tx.execute({
    sql: `SELECT d.seq, d.id, d.name, d.metadata FROM documents d
      JOIN users u ON u.seq = d.user_seq WHERE d.id = ? AND u.name = ?`,
    args: [id, user],
  });
  const row = rows[0];
  if (row === undefined) throw noDocuments([id]);
  const document = toDocument(row);
  const seq = Number(row.seq);
  const users = await tx.execute({
    sql: `SELECT name FROM chats WHERE seq IN (
        SELECT chat_seq FROM chat_documents WHERE document_seq = ?
        UNION SELECT m.chat_seq FROM sources s
          JOIN message_sources ms ON ms.source_seq = s.seq
          JOIN messages m ON m.seq = ms.message_seq
          WHERE s.document_seq = ?
      ) ORDER BY seq`,
    args: [seq, seq],
  });
  if (users.rows.length > 0) throw inUse(document.name, users.rows.map((r) => String(r.name)));
  const action = `delete document ${quote(id)}`;
  await runSteps(tx, [
    // Sources no message links to any more; those of deleted chats are gone already.
    { sql: "DELETE FROM sources WHERE document_seq = ?", args: [seq], action },
    { sql: "DELETE FROM documents WHERE seq = ?", args: [seq], action },
  ]);
  await removeFile(document);
  return document;
}

/**
 * Removes the file of a document (its metadata's `path`), if it has one.
 * @throws {SvcError} 503 or 507 when the file cannot be removed
 */
export async function removeFile(document: StoredDocument): Promise<void> {
  const path = document.metadata.path;
  if (typeof path !== "string") return;
  try {
    await Deno.remove(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw diskFaultError(`Cannot delete the file of ${quote(document.name)}`, error) ??
        new SvcError(`Cannot delete the file of ${quote(document.name)}`, { cause: error });
    }
  }
}

/** 409: the chats that still use a document, by name. */
export function inUse(name: string, chats: string[]): SvcError {
  const named = chats.slice(0, NAMED_CHATS).map(quote);
  const others = chats.length - named.length;
  const listed = others > 0
    ? `${named.join(", ")} and ${others} ${others === 1 ? "other" : "others"}`
    : named.length === 1
    ? named[0]
    : `${named.slice(0, -1).join(", ")} and ${named.at(-1)}`;
  const [noun, verb, object] = chats.length === 1
    ? ["chat", "uses", "it"]
    : ["chats", "use", "them"];
  return new SvcError(
    `Cannot delete the document ${quote(name)}: the ${noun} ${listed} ${verb} it; ` +
      `delete ${object} first`,
    { status: 409 },
  );
}

/** 404 `No document "a"`, or `No documents "a", "b"`: never saying whether another user has it. */
export function noDocuments(ids: string[]): SvcError {
  const noun = ids.length === 1 ? "document" : "documents";
  return new SvcError(`No ${noun} ${ids.map(quote).join(", ")}`, { status: 404 });
}

function toDocument(row: Row): StoredDocument {
  return {
    id: String(row.id),
    name: String(row.name),
    metadata: JSON.parse(String(row.metadata)),
  };
}

/**
 * The query of the user's uploaded documents, newest first, each with its
 * size, its pages when a chat read them, and the ids of the chats that use it
 * (as one of their documents, or through sources of their messages) as a JSON
 * array. A registration whose file has not come is left out.
 */
export function documentListQuery(user: string): InStatement {
  return {
    sql: `SELECT d.id, d.name, json_extract(d.metadata, '$.size') AS size,
        json_extract(d.metadata, '$.pages') AS pages,
        (SELECT json_group_array(c.id ORDER BY c.seq) FROM chats c WHERE c.seq IN (
          SELECT chat_seq FROM chat_documents WHERE document_seq = d.seq
          UNION SELECT m.chat_seq FROM sources s
            JOIN message_sources ms ON ms.source_seq = s.seq
            JOIN messages m ON m.seq = ms.message_seq
            WHERE s.document_seq = d.seq)) AS chats
      FROM documents d WHERE d.user_seq = (SELECT seq FROM users WHERE name = ?)
        AND (json_extract(d.metadata, '$.size') IS NOT NULL OR d.registered IS NULL)
      ORDER BY COALESCE(d.registered, 0) DESC, d.seq DESC`,
    args: [user],
  };
}

/** The documents of {@linkcode documentListQuery}'s rows. */
export function toDocumentList(result: ResultSet): DocumentListing[] {
  return result.rows.map((row) => ({
    id: String(row.id),
    name: String(row.name),
    size: row.size === null ? null : Number(row.size),
    pages: row.pages === null ? null : Number(row.pages),
    chats: JSON.parse(String(row.chats ?? "[]")),
  }));
}

/** The steps that record how many pages each of the user's documents has, by id. */
export function pagesSteps(userSeq: number, pages: Record<string, number>): Step[] {
  return Object.entries(pages).map(([id, count]) => ({
    sql: `UPDATE documents SET metadata = json_set(metadata, '$.pages', ?)
      WHERE user_seq = ? AND id = ?`,
    args: [count, userSeq, id],
    action: `record the pages of document ${quote(id)}`,
  }));
}
