/**
 * The registration of a document on PostgreSQL: the same counts and removals
 * as `insertDocument` of `documents.ts`, in PostgreSQL's SQL, inside the
 * transaction that holds the user's lock.
 * @module
 */
import type * as Postgres from "npm:postgres@3.4.9";
import { quote } from "../../components/core/errors.ts";
import type { AddDocumentOptions, AddedDocument } from "./documents.ts";
import { postgresError } from "./postgres_errors.ts";
import type { StoredDocument } from "./records.ts";

/**
 * Stores a document of the user whose key is `userSeq`, unless as many of
 * the user's registrations wait for their file as allowed; the waiting
 * registrations that expired go first.
 */
export async function insertDocument(
  tx: Postgres.TransactionSql,
  userSeq: number,
  document: StoredDocument,
  options: AddDocumentOptions = {},
): Promise<AddedDocument> {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const waiting = tx`(metadata::json ->> 'size') IS NULL AND registered IS NOT NULL`;
  if (options.expireBefore !== undefined) {
    await tx`DELETE FROM documents d WHERE user_seq = ${userSeq} AND ${waiting}
      AND registered < ${options.expireBefore}
      AND NOT EXISTS (SELECT 1 FROM chat_documents c WHERE c.document_seq = d.seq)
      AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.document_seq = d.seq)`;
  }
  let pending = 0;
  let oldestPending: number | undefined;
  if (options.maxPending !== undefined) {
    const [row] = await tx`SELECT count(*) AS pending, min(registered) AS oldest FROM documents
      WHERE user_seq = ${userSeq} AND ${waiting} AND registered >= ${options.countedSince ?? 0}`;
    pending = Number(row?.pending ?? 0);
    oldestPending = row?.oldest == null ? undefined : Number(row.oldest);
    if (pending >= options.maxPending) return { added: false, pending, oldestPending };
  }
  try {
    await tx`INSERT INTO documents (id, user_seq, name, metadata, registered)
      VALUES (${document.id}, ${userSeq}, ${document.name}, ${
      JSON.stringify(document.metadata)
    }, ${now})`;
  } catch (error) {
    throw postgresError(`Cannot save document ${quote(document.id)}`, error);
  }
  return { added: true, pending, oldestPending };
}
