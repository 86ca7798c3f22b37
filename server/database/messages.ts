/**
 * The SQL of messages and their sources: the steps that append messages to a
 * chat, and the queries that read them back for many chats at once.
 * @module
 */
import type { InStatement, ResultSet } from "@libsql/client";
import { quote } from "../../components/core/errors.ts";
import type { MessageRecord, NewMessage, SourceRecord } from "./records.ts";
import type { Step } from "./steps.ts";

/** What {@linkcode appendSteps} needs besides the messages. */
export interface AppendOptions {
  /** The key of the chat. */
  chatSeq: number;
  /** The position of the first message: the number of messages the chat has. */
  first: number;
  /** The key of every document the sources name (see `documentSeqs`). */
  documents: Map<string, number>;
}

/** The ids of the documents the messages' sources come from. */
export function sourceDocumentIds(messages: MessageRecord[]): Set<string> {
  return new Set(messages.flatMap((m) => m.sources.map((s) => s.document.id)));
}

/**
 * The SQL of the question an answer answers, from two arguments: the id the
 * answer names (see `NewMessage`) and the chat's key. Without an id, or with
 * one that is no question of the chat, it is the chat's last question.
 */
export const QUESTION_OF_ANSWER = `COALESCE(
    (SELECT q.seq FROM messages q WHERE q.id = ? AND q.chat_seq = ? AND q.role = 'user'),
    (SELECT q.seq FROM messages q WHERE q.chat_seq = ? AND q.role = 'user'
      ORDER BY q.position DESC LIMIT 1))`;

/**
 * The sort key that lists a chat's messages in question order: each answer
 * right after its question (and its other answers), whenever it was stored.
 */
export const QUESTION_ORDER = `COALESCE(
    (SELECT q.position FROM messages q WHERE q.seq = m.question_seq), m.position), m.position`;

/**
 * The steps that append the messages with their sources, in order; each
 * answer is linked to its question. A source whose id the document already
 * has is reused rather than stored again.
 */
export function appendSteps(messages: NewMessage[], options: AppendOptions): Step[] {
  const steps: Step[] = [];
  messages.forEach((message, index) => {
    const what = `message ${quote(message.id)}`;
    steps.push({
      sql: `INSERT INTO messages
          (id, chat_seq, position, role, content, timestamp, citations, status, question_seq)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ${
        message.role === "assistant" ? QUESTION_OF_ANSWER : "NULL"
      })`,
      args: [
        message.id,
        options.chatSeq,
        options.first + index,
        message.role,
        message.content,
        message.timestamp,
        JSON.stringify(message.citations),
        message.status ?? null,
        ...(message.role === "assistant"
          ? [message.question ?? null, options.chatSeq, options.chatSeq]
          : []),
      ],
      action: `save ${what}`,
    });
    message.sources.forEach((source, position) => {
      const documentSeq = options.documents.get(source.document.id)!;
      steps.push({
        sql: `INSERT INTO sources (id, document_seq, location, content, num_tokens)
          VALUES (?, ?, ?, ?, ?) ON CONFLICT (document_seq, id) DO NOTHING`,
        args: [source.id, documentSeq, source.location, source.content, source.num_tokens],
        action: `save source ${quote(source.id)} of ${what}`,
      }, {
        // Subqueries rather than ids read back, so that all steps go in one round trip.
        sql: `INSERT INTO message_sources (message_seq, position, source_seq) VALUES (
          (SELECT seq FROM messages WHERE id = ?), ?,
          (SELECT seq FROM sources WHERE document_seq = ? AND id = ?))`,
        args: [message.id, position, documentSeq, source.id],
        action: `save source ${quote(source.id)} of ${what}`,
      });
    });
  });
  return steps;
}

/**
 * The queries for the messages and the sources of the chats that `where`
 * selects from `chats c`. Two queries whatever the number of chats and
 * messages: one row per chat holding its messages, in order, as JSON, each with
 * its sources' keys in order, and one row per source. {@linkcode assembleMessages}
 * puts them together.
 */
export function messageQueries(where: string, args: string[]): InStatement[] {
  return [
    {
      // One row per chat whose messages are one JSON text: parsing it is far cheaper than
      // turning each message into a row object of the database client.
      sql: `SELECT m.chat_seq, json_group_array(json_object(
            'id', m.id, 'role', m.role, 'content', m.content, 'timestamp', m.timestamp,
            'sources', json((SELECT json_group_array(ms.source_seq ORDER BY ms.position)
              FROM message_sources ms WHERE ms.message_seq = m.seq)),
            'citations', json(m.citations), 'status', m.status)
          ORDER BY ${QUESTION_ORDER}) AS messages
        FROM chats c JOIN messages m ON m.chat_seq = c.seq
        WHERE ${where} GROUP BY m.chat_seq`,
      args,
    },
    {
      sql: `SELECT s.seq, s.id, d.id AS document_id, d.name AS document_name,
          s.location, s.content, s.num_tokens
        FROM sources s JOIN documents d ON d.seq = s.document_seq
        WHERE s.seq IN (SELECT ms.source_seq FROM chats c
          JOIN messages m ON m.chat_seq = c.seq
          JOIN message_sources ms ON ms.message_seq = m.seq
          WHERE ${where})`,
      args,
    },
  ];
}

/** A message as its query gives it: its sources as their keys, in order. */
interface StoredMessage {
  id: string;
  role: MessageRecord["role"];
  content: string;
  timestamp: string;
  sources: number[];
  citations: number[];
  status: MessageRecord["status"] | null;
}

/** The messages of each chat, by the chat's key, from the results of {@linkcode messageQueries}. */
export function assembleMessages(
  [messageRows, sourceRows]: ResultSet[],
): Map<number, MessageRecord[]> {
  const sources = new Map<number, SourceRecord>();
  for (const row of sourceRows!.rows) {
    sources.set(Number(row.seq), {
      id: String(row.id),
      document: { id: String(row.document_id), name: String(row.document_name) },
      location: String(row.location),
      content: String(row.content),
      num_tokens: Number(row.num_tokens),
    });
  }
  const byChat = new Map<number, MessageRecord[]>();
  for (const row of messageRows!.rows) {
    const messages: StoredMessage[] = JSON.parse(String(row.messages));
    byChat.set(
      Number(row.chat_seq),
      messages.map(({ id, role, content, timestamp, sources: keys, citations, status }) => ({
        id,
        content,
        role,
        // A copy per message: a source shared by many answers is one row, but
        // callers may change one message without changing the others.
        sources: keys.map((key) => {
          const source = sources.get(key)!;
          return { ...source, document: { ...source.document } };
        }),
        timestamp,
        citations,
        // Only an answer that did not end complete has a status.
        ...(status ? { status } : {}),
      })),
    );
  }
  return byChat;
}
