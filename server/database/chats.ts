/**
 * The SQL of chats: creating one with its documents, within the user's limit
 * of chats; finding a user's chat for a write; reading chats with the
 * messages of their conversation, or without them; and deleting one.
 * @module
 */
import type { InStatement, ResultSet, Transaction } from "@libsql/client";
import { quote, SvcError } from "../../components/core/errors.ts";
import { documentSeqs } from "./documents.ts";
import { inConversation, messageJson } from "./message_json.ts";
import { appendSteps, QUESTION_ORDER, sourceDocumentIds } from "./messages.ts";
import type { ChatMetadata, ChatRecord, ChatSummary, DocumentRecord } from "./records.ts";
import { runSteps, type Step } from "./steps.ts";

/** A user's chat as a write needs it. */
export interface ChatKey {
  id: string;
  seq: number;
  userSeq: number;
  prepared: boolean;
  /** The number of messages, which is the position of the next one. */
  next: number;
}

/** Options of {@linkcode insertChat}. */
export interface InsertChatOptions {
  /**
   * The most chats the user may have: 429 when they have as many already.
   * @default {Infinity}
   */
  maxChats?: number;
}

/**
 * Stores a new chat of the user whose key is `userSeq`, with its documents and
 * messages.
 *
 * @throws {SvcError} 429 when the user has `maxChats` chats already; 404 naming
 * the documents that are missing or another user's; 409 when the id is taken
 */
export async function insertChat(
  tx: Transaction,
  userSeq: number,
  chat: ChatRecord,
  options: InsertChatOptions = {},
): Promise<void> {
  const { metadata } = chat;
  const { maxChats = Infinity } = options;
  if (Number.isFinite(maxChats)) {
    // Counted in the write that adds the chat, so that chats created at once cannot pass the limit.
    const { rows } = await tx.execute({
      sql: "SELECT COUNT(*) AS n FROM chats WHERE user_seq = ?",
      args: [userSeq],
    });
    checkChatLimit(Number(rows[0]?.n ?? 0), maxChats);
  }
  const documents = await documentSeqs(tx, userSeq, [
    ...metadata.documents.map((d) => d.id),
    ...sourceDocumentIds(chat.messages),
  ]);
  const what = `chat ${quote(chat.id)}`;
  const inserted = await tx.execute({
    sql: `INSERT INTO chats (id, user_seq, name, source_storage, assistant, params, prepared)
      VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING seq`,
    args: [
      chat.id,
      userSeq,
      metadata.name,
      metadata.source_storage,
      metadata.assistant,
      JSON.stringify(metadata.params),
      chat.prepared ? 1 : 0,
    ],
  });
  const seq = inserted.rows[0]?.seq;
  if (seq === undefined || seq === null) {
    throw new SvcError(`Cannot save ${what}: a chat with this id exists`, { status: 409 });
  }
  const chatSeq = Number(seq);
  const links: Step[] = metadata.documents.map((document: DocumentRecord, position) => ({
    sql: "INSERT INTO chat_documents (chat_seq, position, document_seq, name) VALUES (?, ?, ?, ?)",
    args: [chatSeq, position, documents.get(document.id)!, document.name],
    action: `save document ${quote(document.id)} of ${what}`,
  }));
  await runSteps(tx, [
    ...links,
    ...appendSteps(chat.messages, { chatSeq, first: 0, documents }),
  ]);
}

/** 429 when a user who has `count` chats may not have another. */
export function checkChatLimit(count: number, maxChats: number): void {
  if (count < maxChats) return;
  throw new SvcError(
    `You have ${count} chats, the most one user may have: delete a chat to create another`,
    { status: 429 },
  );
}

/** The user's chat, inside a write; 404 `No chat "<id>"` when it is missing or another user's. */
export async function findChat(tx: Transaction, user: string, id: string): Promise<ChatKey> {
  const { rows } = await tx.execute({
    sql: `SELECT c.seq, c.user_seq, c.prepared,
        (SELECT COALESCE(MAX(m.position) + 1, 0) FROM messages m WHERE m.chat_seq = c.seq) AS next
      FROM chats c JOIN users u ON u.seq = c.user_seq WHERE c.id = ? AND u.name = ?`,
    args: [id, user],
  });
  const row = rows[0];
  if (row === undefined) throw noChat(id);
  return {
    id,
    seq: Number(row.seq),
    userSeq: Number(row.user_seq),
    prepared: Number(row.prepared) === 1,
    next: Number(row.next),
  };
}

/** Options of {@linkcode chatsJsonQuery}. */
export interface ChatsJsonOptions {
  /** Only the chat with this id. */
  id?: string;
  /**
   * The time answers' runs are read at, in milliseconds since the epoch: a run
   * whose lease ended by then is an answer that failed.
   * @default {Date.now()}
   */
  now?: number;
}

/**
 * The query whose one row holds the user's chats (or only the one with `id`),
 * oldest first, as JSON text, keys in the order of the API's `Chat`: SQLite
 * writes the text, so that no message or source becomes an object on the way
 * out. Each chat lists the messages of its conversation (see
 * `inConversation`), each answer after its question. The lists of chats and of
 * each chat's messages are joined as text, since `json()` would parse each
 * again to embed it; only the small ones (a chat's documents, a message's
 * sources) go through `json()`, without which `json_object` would quote them
 * as strings.
 */
export function chatsJsonQuery(user: string, options: ChatsJsonOptions = {}): InStatement {
  const { id, now = Date.now() } = options;
  return {
    sql: `WITH clock (now) AS (SELECT ?)
      SELECT '[' || COALESCE(group_concat(chat, ',' ORDER BY seq), '') || ']' AS chats FROM (
        SELECT c.seq, '{"id":' || json_quote(c.id) || ',"metadata":' || json_object(
            'name', c.name, 'source_storage', c.source_storage, 'assistant', c.assistant,
            'params', json(c.params),
            'documents', json((SELECT json_group_array(
                json_object('id', d.id, 'name', cd.name) ORDER BY cd.position)
              FROM chat_documents cd JOIN documents d ON d.seq = cd.document_seq
              WHERE cd.chat_seq = c.seq)))
          || ',"messages":[' || COALESCE((SELECT group_concat(${messageJson("m", true)},
              ',' ORDER BY ${QUESTION_ORDER})
            FROM messages m WHERE m.chat_seq = c.seq AND ${inConversation("m")}), '')
          || '],"prepared":' || CASE WHEN c.prepared = 1 THEN 'true' ELSE 'false' END || '}' AS chat
        FROM chats c WHERE c.user_seq = (SELECT seq FROM users WHERE name = ?)
          ${id === undefined ? "" : "AND c.id = ?"}
      )`,
    args: id === undefined ? [now, user] : [now, user, id],
  };
}

/**
 * The queries that read the user's chats with their documents but not their
 * messages, only how many there are and when the last one was written: two
 * queries, whatever the number of chats. {@linkcode assembleSummaries} puts
 * the results together.
 */
export function summaryQueries(user: string): InStatement[] {
  return [
    {
      // The last message by position, which the index of (chat_seq, position) finds at once.
      sql: `SELECT c.seq, c.id, c.name, c.source_storage, c.assistant, c.params, c.prepared,
          (SELECT COUNT(*) FROM messages m WHERE m.chat_seq = c.seq AND ${inConversation("m")})
            AS num_messages,
          (SELECT m.timestamp FROM messages m WHERE m.chat_seq = c.seq
            ORDER BY m.position DESC LIMIT 1) AS last_activity
        FROM chats c WHERE c.user_seq = (SELECT seq FROM users WHERE name = ?) ORDER BY c.seq`,
      args: [user],
    },
    {
      sql: `SELECT cd.chat_seq, d.id, cd.name FROM chats c
        JOIN chat_documents cd ON cd.chat_seq = c.seq
        JOIN documents d ON d.seq = cd.document_seq
        WHERE c.user_seq = (SELECT seq FROM users WHERE name = ?)
        ORDER BY cd.chat_seq, cd.position`,
      args: [user],
    },
  ];
}

/** The chats without their messages, oldest first, from the results of {@linkcode summaryQueries}. */
export function assembleSummaries([chatRows, documentRows]: ResultSet[]): ChatSummary[] {
  const metadata = metadataOf(chatRows!, documentRows!);
  return chatRows!.rows.map((row, index) => ({
    id: String(row.id),
    metadata: metadata[index]!,
    prepared: Number(row.prepared) === 1,
    num_messages: Number(row.num_messages),
    last_activity: row.last_activity === null ? null : String(row.last_activity),
  }));
}

/** The metadata of each chat row, in order, with its documents. */
function metadataOf(chatRows: ResultSet, documentRows: ResultSet): ChatMetadata[] {
  const documents = new Map<number, DocumentRecord[]>();
  for (const row of documentRows.rows) {
    const list = documents.get(Number(row.chat_seq)) ?? [];
    list.push({ id: String(row.id), name: String(row.name) });
    documents.set(Number(row.chat_seq), list);
  }
  return chatRows.rows.map((row) => ({
    name: String(row.name),
    source_storage: String(row.source_storage),
    assistant: String(row.assistant),
    params: JSON.parse(String(row.params)),
    documents: documents.get(Number(row.seq)) ?? [],
  }));
}

/**
 * Removes the chat, its messages, their links to sources and its links to
 * documents, then those of its sources that no other message links to.
 * Documents stay: they were uploaded, and another chat may use them.
 */
export async function removeChat(tx: Transaction, chat: ChatKey): Promise<void> {
  // The chat's sources are read before their links go, so that only they are
  // checked for other links, rather than every source of the user.
  const { rows } = await tx.execute({
    sql: `SELECT json_group_array(DISTINCT ms.source_seq) AS seqs FROM messages m
      JOIN message_sources ms ON ms.message_seq = m.seq WHERE m.chat_seq = ?`,
    args: [chat.seq],
  });
  const sources = String(rows[0]?.seqs ?? "[]");
  const action = `delete chat ${quote(chat.id)}`;
  await runSteps(tx, [
    {
      sql:
        "DELETE FROM answer_runs WHERE message_seq IN (SELECT seq FROM messages WHERE chat_seq = ?)",
      args: [chat.seq],
      action,
    },
    {
      sql: `DELETE FROM message_sources
        WHERE message_seq IN (SELECT seq FROM messages WHERE chat_seq = ?)`,
      args: [chat.seq],
      action,
    },
    { sql: "DELETE FROM messages WHERE chat_seq = ?", args: [chat.seq], action },
    { sql: "DELETE FROM chat_documents WHERE chat_seq = ?", args: [chat.seq], action },
    { sql: "DELETE FROM chats WHERE seq = ?", args: [chat.seq], action },
    {
      // One JSON array rather than a placeholder per source, which could pass
      // SQLite's limit on the number of parameters.
      sql: `DELETE FROM sources WHERE seq IN (SELECT value FROM json_each(?))
        AND NOT EXISTS (SELECT 1 FROM message_sources ms WHERE ms.source_seq = sources.seq)`,
      args: [sources],
      action,
    },
  ]);
}

/** 404 `No chat "<id>"`: never saying whether another user has it. */
export function noChat(id: string): SvcError {
  return new SvcError(`No chat ${quote(id)}`, { status: 404 });
}
