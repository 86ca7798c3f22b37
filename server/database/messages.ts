/**
 * The SQL of messages and their sources: the steps that append messages to a
 * chat, each answer linked to its question, and the order they are listed in.
 * @module
 */
import { quote } from "../../components/core/errors.ts";
import type { MessageRecord, NewMessage } from "./records.ts";
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
 * has is reused rather than stored again. An answer with `runsUntil` is stored
 * as running (see `answer_runs`), its status left for its end to set.
 */
export function appendSteps(messages: NewMessage[], options: AppendOptions): Step[] {
  const steps: Step[] = [];
  messages.forEach((message, index) => {
    const what = `message ${quote(message.id)}`;
    steps.push({
      sql: `INSERT INTO messages
          (id, chat_seq, position, role, content, timestamp, citations, status, error,
            question_seq)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ${
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
        storedStatus(message),
        message.error ?? null,
        ...(message.role === "assistant"
          ? [message.question ?? null, options.chatSeq, options.chatSeq]
          : []),
      ],
      action: `save ${what}`,
    });
    if (message.runsUntil !== undefined) {
      steps.push({
        sql: `INSERT INTO answer_runs (message_seq, expires)
          VALUES ((SELECT seq FROM messages WHERE id = ?), ?)`,
        args: [message.id, message.runsUntil],
        action: `save ${what}`,
      });
    }
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

/** The status a message is stored with: none while it runs, its run tells it then. */
export function storedStatus(message: NewMessage): string | null {
  return message.runsUntil !== undefined || message.status === "streaming"
    ? null
    : message.status ?? null;
}
