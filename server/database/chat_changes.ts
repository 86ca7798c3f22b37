/**
 * The SQL of changes to a chat after it was made: its name (given by its
 * user, or its title from its first question), and documents added to it or
 * taken out of it.
 * @module
 */
import type { Transaction } from "@libsql/client";
import { quote, SvcError } from "../../components/core/errors.ts";
import type { ChatKey } from "./chats.ts";
import { documentSeqs } from "./documents.ts";
import type { DocumentRecord } from "./records.ts";
import { runSteps } from "./steps.ts";

/** Renames the chat. */
export async function updateChatName(tx: Transaction, chat: ChatKey, name: string): Promise<void> {
  await runSteps(tx, [{
    sql: "UPDATE chats SET name = ? WHERE seq = ?",
    args: [name, chat.seq],
    action: `rename chat ${quote(chat.id)}`,
  }]);
}

/**
 * Names a chat that has no name yet (`""`) with `title`; a chat with a name
 * keeps it. Whether it was named.
 */
export async function titleChat(tx: Transaction, chat: ChatKey, title: string): Promise<boolean> {
  const { rowsAffected } = await tx.execute({
    sql: "UPDATE chats SET name = ? WHERE seq = ? AND name = ''",
    args: [title, chat.seq],
  });
  return rowsAffected > 0;
}

/**
 * Adds documents to the end of the chat's. 404 naming those that are
 * missing or another user's; 409 naming one the chat has already.
 */
export async function insertChatDocuments(
  tx: Transaction,
  chat: ChatKey,
  documents: DocumentRecord[],
): Promise<void> {
  const seqs = await documentSeqs(tx, chat.userSeq, documents.map((d) => d.id));
  const [linked, last] = await tx.batch([
    {
      sql: `SELECT d.id FROM chat_documents cd JOIN documents d ON d.seq = cd.document_seq
        WHERE cd.chat_seq = ?`,
      args: [chat.seq],
    },
    {
      sql: "SELECT COALESCE(MAX(position) + 1, 0) AS next FROM chat_documents WHERE chat_seq = ?",
      args: [chat.seq],
    },
  ]);
  const had = new Set(linked!.rows.map((row) => String(row.id)));
  const next = Number(last!.rows[0]?.next ?? 0);
  const seen = new Set<string>();
  for (const document of documents) {
    if (had.has(document.id) || seen.has(document.id)) {
      throw new SvcError(
        `The chat ${quote(chat.id)} has the document ${quote(document.id)} already`,
        { status: 409 },
      );
    }
    seen.add(document.id);
  }
  await runSteps(
    tx,
    documents.map((document, index) => ({
      sql: `INSERT INTO chat_documents (chat_seq, position, document_seq, name)
        VALUES (?, ?, ?, ?)`,
      args: [chat.seq, next + index, seqs.get(document.id)!, document.name],
      action: `add document ${quote(document.id)} to chat ${quote(chat.id)}`,
    })),
  );
}

/**
 * Takes a document out of the chat. 404 for a document that is missing or
 * another user's, or that the chat does not have.
 */
export async function deleteChatDocument(
  tx: Transaction,
  chat: ChatKey,
  documentId: string,
): Promise<void> {
  const seqs = await documentSeqs(tx, chat.userSeq, [documentId]);
  const { rowsAffected } = await tx.execute({
    sql: "DELETE FROM chat_documents WHERE chat_seq = ? AND document_seq = ?",
    args: [chat.seq, seqs.get(documentId)!],
  });
  if (rowsAffected === 0) throw notInChat(chat.id, documentId);
}

/** 404: the chat does not have the document. */
export function notInChat(chatId: string, documentId: string): SvcError {
  return new SvcError(`The chat ${quote(chatId)} has no document ${quote(documentId)}`, {
    status: 404,
  });
}
