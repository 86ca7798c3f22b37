/**
 * The SQL of changes to a chat after it was made: its name (given by its
 * user, or its title from its first question), documents added to it, and
 * the last question's answer taken back to be written again.
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
 * Removes the answers of the chat's question whose key is `questionSeq`,
 * their links to sources, and those of their sources that no other message
 * links to. The answers of other questions stay, wherever they were stored.
 */
export async function removeAnswers(
  tx: Transaction,
  chat: ChatKey,
  questionSeq: number,
): Promise<void> {
  const { rows } = await tx.execute({
    sql: `SELECT json_group_array(DISTINCT ms.source_seq) AS seqs FROM messages m
      JOIN message_sources ms ON ms.message_seq = m.seq WHERE m.question_seq = ?`,
    args: [questionSeq],
  });
  const sources = String(rows[0]?.seqs ?? "[]");
  const action = `take back the last answer of chat ${quote(chat.id)}`;
  await runSteps(tx, [
    {
      sql: `DELETE FROM message_sources WHERE message_seq IN
        (SELECT seq FROM messages WHERE question_seq = ?)`,
      args: [questionSeq],
      action,
    },
    { sql: "DELETE FROM messages WHERE question_seq = ?", args: [questionSeq], action },
    {
      sql: `DELETE FROM sources WHERE seq IN (SELECT value FROM json_each(?))
        AND NOT EXISTS (SELECT 1 FROM message_sources ms WHERE ms.source_seq = sources.seq)`,
      args: [sources],
      action,
    },
  ]);
}

/** The key and content of the chat's last question, or `undefined` when it has none. */
export async function lastQuestion(
  tx: Transaction,
  chat: ChatKey,
): Promise<{ seq: number; content: string } | undefined> {
  const { rows } = await tx.execute({
    sql: `SELECT seq, content FROM messages WHERE chat_seq = ? AND role = 'user'
      ORDER BY position DESC LIMIT 1`,
    args: [chat.seq],
  });
  const row = rows[0];
  return row === undefined ? undefined : { seq: Number(row.seq), content: String(row.content) };
}
