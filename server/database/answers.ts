/**
 * The SQL of answers after they were stored, on libSQL: the text so far of
 * running answers and their leases, their end, a stop asked from any replica,
 * a message read alone, the branch an edit took out of the conversation, an
 * edit, and feedback.
 * @module
 */
import type { InStatement, ResultSet, Transaction } from "@libsql/client";
import { quote, SvcError } from "../../components/core/errors.ts";
import type { ChatKey } from "./chats.ts";
import { inQuestionBranch, LOST_ANSWER, messageJson } from "./message_json.ts";
import { QUESTION_ORDER } from "./messages.ts";
import type { AnswerEnd, AnswerProgress, RatedAnswer, SourceRecord } from "./records.ts";
import { runSteps, type Step } from "./steps.ts";

/**
 * The steps that save running answers' text so far and extend their leases to
 * `until`; the runs of any replica whose lease ended by `now` end as failed.
 */
export function progressSteps(progress: AnswerProgress[], until: number, now: number): Step[] {
  const action = "save the answers being written";
  const steps: Step[] = [];
  for (const { id, content, citations } of progress) {
    if (content !== undefined) {
      steps.push({
        sql: "UPDATE messages SET content = ?, citations = ? WHERE id = ?",
        args: [content, JSON.stringify(citations ?? []), id],
        action,
      });
    }
  }
  steps.push(
    {
      sql: `UPDATE answer_runs SET expires = ?
        WHERE message_seq IN (SELECT seq FROM messages WHERE id IN (SELECT value FROM json_each(?)))`,
      args: [until, JSON.stringify(progress.map((each) => each.id))],
      action,
    },
    ...lostRunSteps(now),
  );
  return steps;
}

/** The steps that end, as failed, the runs whose lease ended by `now`: their replica went away. */
function lostRunSteps(now: number): Step[] {
  const action = "end the answers whose server went away";
  return [
    {
      sql: `UPDATE messages SET status = 'failed', error = COALESCE(error, ?)
        WHERE seq IN (SELECT message_seq FROM answer_runs WHERE expires <= ?)`,
      args: [LOST_ANSWER, now],
      action,
    },
    { sql: "DELETE FROM answer_runs WHERE expires <= ?", args: [now], action },
  ];
}

/**
 * The query of the ids among `ids` of answers that are to stop: their stop
 * was asked, or their run is gone (their chat deleted, their lease over).
 */
export function stopsQuery(ids: string[]): InStatement {
  const list = JSON.stringify(ids);
  return {
    sql: `SELECT value AS id FROM json_each(?) WHERE value NOT IN (
        SELECT m.id FROM answer_runs r JOIN messages m ON m.seq = r.message_seq
        WHERE r.stop_asked = 0 AND m.id IN (SELECT value FROM json_each(?)))`,
    args: [list, list],
  };
}

/** The steps that end a running answer: its last text, its status, and its run gone. */
export function finishSteps(end: AnswerEnd): Step[] {
  const action = `save the answer ${quote(end.id)}`;
  return [
    {
      sql: "UPDATE messages SET content = ?, citations = ?, status = ?, error = ? WHERE id = ?",
      args: [
        end.content,
        JSON.stringify(end.citations),
        end.status ?? null,
        end.error ?? null,
        end.id,
      ],
      action,
    },
    {
      sql: "DELETE FROM answer_runs WHERE message_seq = (SELECT seq FROM messages WHERE id = ?)",
      args: [end.id],
      action,
    },
  ];
}

/** Asks the chat's running answers to stop; their ids. */
export async function askStop(tx: Transaction, chat: ChatKey): Promise<string[]> {
  const { rows } = await tx.execute({
    sql: `UPDATE answer_runs SET stop_asked = 1
      WHERE message_seq IN (SELECT seq FROM messages WHERE chat_seq = ?)
      RETURNING (SELECT id FROM messages WHERE seq = message_seq) AS id`,
    args: [chat.seq],
  });
  return rows.map((row) => String(row.id));
}

/**
 * The query whose one row holds, as JSON text, the messages of the user's chat
 * that `where` selects (a condition on `m`, its arguments after the chat's),
 * in the order the chat lists them, each with its versions; and whether the
 * chat is there (`chat`, null when it is not).
 */
export function messagesJsonQuery(
  user: string,
  chatId: string,
  where: string,
  args: (string | number)[],
  now: number,
): InStatement {
  return {
    sql: `WITH clock (now) AS (SELECT ?),
        chat (seq) AS (SELECT c.seq FROM chats c JOIN users u ON u.seq = c.user_seq
          WHERE c.id = ? AND u.name = ?)
      SELECT (SELECT seq FROM chat) AS chat, '[' || COALESCE((SELECT group_concat(
          ${messageJson("m", true)}, ',' ORDER BY ${QUESTION_ORDER})
        FROM messages m WHERE m.chat_seq = (SELECT seq FROM chat) AND ${where}), '') || ']'
        AS messages`,
    args: [now, chatId, user, ...args],
  };
}

/** The condition of one message by its id, for {@linkcode messagesJsonQuery}. */
export const ONE_MESSAGE = "m.id = ?";

/**
 * The condition of a question's branch, for {@linkcode messagesJsonQuery}: the
 * messages that an edit of the question with the id given took out of the
 * conversation, or, for a question no edit replaced, the conversation from it on.
 */
export const BRANCH = `EXISTS (SELECT 1 FROM messages b WHERE b.id = ? AND b.role = 'user'
    AND b.chat_seq = m.chat_seq AND ${inQuestionBranch("m", "b")})`;

/**
 * The key and content of the chat's last question in its conversation, or
 * `undefined` when it has none.
 */
export async function lastQuestion(
  tx: Transaction,
  chat: ChatKey,
): Promise<{ id: string; content: string } | undefined> {
  const { rows } = await tx.execute({
    sql: `SELECT id, content FROM messages WHERE chat_seq = ? AND role = 'user'
      AND branch_seq IS NULL ORDER BY position DESC LIMIT 1`,
    args: [chat.seq],
  });
  const row = rows[0];
  return row === undefined ? undefined : { id: String(row.id), content: String(row.content) };
}

/** A message of a chat as a write needs it. */
export interface MessageKey {
  seq: number;
  role: string;
  position: number;
  /** The key of the question version it belongs to the branch of, when an edit replaced it. */
  branch: number | null;
  /** The key of its question's first version. */
  original: number;
}

/** The chat's message with the id; 404 when the chat has none. */
export async function findMessage(tx: Transaction, chat: ChatKey, id: string): Promise<MessageKey> {
  const { rows } = await tx.execute({
    sql: `SELECT seq, role, position, branch_seq, COALESCE(original_seq, seq) AS original
      FROM messages WHERE id = ? AND chat_seq = ?`,
    args: [id, chat.seq],
  });
  const row = rows[0];
  if (row === undefined) throw noMessage(chat.id, id);
  return {
    seq: Number(row.seq),
    role: String(row.role),
    position: Number(row.position),
    branch: row.branch_seq === null ? null : Number(row.branch_seq),
    original: Number(row.original),
  };
}

/**
 * The steps that take a question of the conversation, and the questions after
 * it, out of the conversation into the question's branch, then mark the
 * question `id` (appended after them) a version of it.
 *
 * @throws {SvcError} 400 for a message that is not a question of the conversation
 */
export function editSteps(chat: ChatKey, edited: MessageKey, id: string): {
  before: Step[];
  after: Step[];
} {
  if (edited.role !== "user" || edited.branch !== null) throw notEditable(edited.role);
  const action = `edit a question of chat ${quote(chat.id)}`;
  return {
    before: [{
      sql: `UPDATE messages SET branch_seq = ? WHERE chat_seq = ? AND role = 'user'
        AND branch_seq IS NULL AND position >= ?`,
      args: [edited.seq, chat.seq, edited.position],
      action,
    }],
    after: [{
      sql: "UPDATE messages SET original_seq = ? WHERE id = ?",
      args: [edited.original, id],
      action,
    }],
  };
}

/**
 * Sets or clears (`null`) the feedback of an answer.
 * @throws {SvcError} 400 for a message that is not an answer
 */
export async function writeFeedback(
  tx: Transaction,
  chat: ChatKey,
  message: MessageKey,
  feedback: string | null,
): Promise<void> {
  if (message.role !== "assistant") throw noFeedback();
  await runSteps(tx, [{
    sql: "UPDATE messages SET feedback = ? WHERE seq = ?",
    args: [feedback, message.seq],
    action: `save the feedback of a message of chat ${quote(chat.id)}`,
  }]);
}

/** The refusal of an edit of what is not a question of the conversation. */
export function notEditable(role: string): SvcError {
  return new SvcError(
    role === "user"
      ? "Only a question of the chat's conversation can be edited, not one an edit replaced"
      : "Only a question can be edited, not an answer or the welcome",
    { status: 400 },
  );
}

/** The refusal of feedback on what is not an answer. */
export function noFeedback(): SvcError {
  return new SvcError("Only an answer takes feedback, not a question or the welcome", {
    status: 400,
  });
}

/** The refusal of the branch of what is not a question. */
export function noBranch(): SvcError {
  return new SvcError("Only a question has a branch, not an answer or the welcome", {
    status: 400,
  });
}

/** 404 `No message "m" in chat "c"`. */
export function noMessage(chatId: string, id: string): SvcError {
  return new SvcError(`No message ${quote(id)} in chat ${quote(chatId)}`, { status: 404 });
}

/** The query of the answers rated `rating`, of one user or of all, oldest first. */
export function ratedAnswersQuery(rating: string, user?: string): InStatement {
  return {
    sql: `SELECT u.name AS user, c.id AS chat, q.content AS question, m.citations,
        json((SELECT json_group_array(json_object(
            'id', s.id, 'document', json_object('id', d.id, 'name', d.name),
            'location', s.location, 'content', s.content, 'num_tokens', s.num_tokens)
            ORDER BY ms.position)
          FROM message_sources ms JOIN sources s ON s.seq = ms.source_seq
          JOIN documents d ON d.seq = s.document_seq
          WHERE ms.message_seq = m.seq)) AS sources
      FROM messages m JOIN messages q ON q.seq = m.question_seq
      JOIN chats c ON c.seq = m.chat_seq JOIN users u ON u.seq = c.user_seq
      WHERE m.role = 'assistant' AND json_extract(m.feedback, '$.rating') = ?
        ${user === undefined ? "" : "AND u.name = ?"}
      ORDER BY m.seq`,
    args: user === undefined ? [rating] : [rating, user],
  };
}

/** The answers of {@linkcode ratedAnswersQuery}'s rows. */
export function toRatedAnswers(result: ResultSet): RatedAnswer[] {
  return result.rows.map((row) =>
    ratedAnswer({
      user: String(row.user),
      chat: String(row.chat),
      question: String(row.question),
      citations: JSON.parse(String(row.citations)),
      sources: JSON.parse(String(row.sources)),
    })
  );
}

/** A rated answer with the sources it cites, or all its sources when it cites none. */
export function ratedAnswer(
  row: {
    user: string;
    chat: string;
    question: string;
    citations: number[];
    sources: SourceRecord[];
  },
): RatedAnswer {
  const cited = row.citations.map((rank) => row.sources[rank - 1]).filter((source) =>
    source !== undefined
  );
  return {
    user: row.user,
    chat: row.chat,
    question: row.question,
    sources: cited.length > 0 ? cited : row.sources,
  };
}
