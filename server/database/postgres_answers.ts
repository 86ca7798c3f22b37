/**
 * The SQL of answers after they were stored, and of listing documents, on
 * PostgreSQL: what `answers.ts` and `documents.ts` do on libSQL, statement for
 * statement, inside the transactions of `PostgresDatabase`.
 * @module
 */
import type * as Postgres from "npm:postgres@3.4.9";
import { quote } from "../../components/core/errors.ts";
import { noMessage, ratedAnswer } from "./answers.ts";
import { LOST_ANSWER } from "./message_json.ts";
import { postgresError } from "./postgres_errors.ts";
import type {
  AnswerEnd,
  AnswerProgress,
  DocumentListing,
  RatedAnswer,
  SourceRecord,
} from "./records.ts";

type Tx = Postgres.TransactionSql;

/** The user's uploaded documents, newest first (see `documentListQuery`). */
export async function listDocuments(sql: Postgres.Sql, user: string): Promise<DocumentListing[]> {
  const rows = await sql`SELECT d.id, d.name, (d.metadata::json ->> 'size') AS size,
      (d.metadata::json ->> 'pages') AS pages,
      COALESCE((SELECT json_agg(c.id ORDER BY c.seq) FROM chats c WHERE c.seq IN (
        SELECT chat_seq FROM chat_documents WHERE document_seq = d.seq
        UNION SELECT m.chat_seq FROM sources s
          JOIN message_sources ms ON ms.source_seq = s.seq
          JOIN messages m ON m.seq = ms.message_seq
          WHERE s.document_seq = d.seq)), '[]'::json) AS chats
    FROM documents d WHERE d.user_seq = (SELECT seq FROM users WHERE name = ${user})
      AND ((d.metadata::json ->> 'size') IS NOT NULL OR d.registered IS NULL)
    ORDER BY COALESCE(d.registered, 0) DESC, d.seq DESC`;
  return rows.map((row) => ({
    id: String(row.id),
    name: String(row.name),
    size: row.size === null ? null : Number(row.size),
    pages: row.pages === null ? null : Number(row.pages),
    chats: row.chats as string[],
  }));
}

/** Records how many pages each of the user's documents has, by id. */
export async function recordPages(
  tx: Tx,
  userSeq: number,
  pages: Record<string, number>,
): Promise<void> {
  for (const [id, count] of Object.entries(pages)) {
    const [row] =
      await tx`SELECT metadata FROM documents WHERE user_seq = ${userSeq} AND id = ${id}`;
    if (row === undefined) continue;
    // Rewritten by JSON.stringify, as libSQL's json_set keeps it: no spaces.
    const metadata = JSON.parse(String(row.metadata));
    metadata.pages = count;
    await step(
      `record the pages of document ${quote(id)}`,
      tx`UPDATE documents SET metadata = ${JSON.stringify(metadata)}
        WHERE user_seq = ${userSeq} AND id = ${id}`,
    );
  }
}

/** Saves running answers' text so far and leases; the ids among them whose stop was asked. */
export async function saveAnswers(
  tx: Tx,
  progress: AnswerProgress[],
  options: { until: number; now: number },
): Promise<string[]> {
  const action = "save the answers being written";
  for (const { id, content, citations } of progress) {
    if (content === undefined) continue;
    await step(
      action,
      tx`UPDATE messages SET content = ${content}, citations = ${JSON.stringify(citations ?? [])}
        WHERE id = ${id}`,
    );
  }
  const ids = progress.map((each) => each.id);
  await step(
    action,
    tx`UPDATE answer_runs SET expires = ${options.until}
      WHERE message_seq IN (SELECT seq FROM messages WHERE id = ANY(${ids}))`,
  );
  const lost = "end the answers whose server went away";
  await step(
    lost,
    tx`UPDATE messages SET status = 'failed', error = COALESCE(error, ${LOST_ANSWER})
      WHERE seq IN (SELECT message_seq FROM answer_runs WHERE expires <= ${options.now})`,
  );
  await step(lost, tx`DELETE FROM answer_runs WHERE expires <= ${options.now}`);
  return await stopsAsked(tx, ids);
}

/** The ids among `ids` of answers that are to stop (see `stopsQuery`). */
export async function stopsAsked(sql: Postgres.Sql | Tx, ids: string[]): Promise<string[]> {
  const rows = await sql`SELECT id FROM unnest(${ids}::text[]) AS id WHERE id NOT IN (
      SELECT m.id FROM answer_runs r JOIN messages m ON m.seq = r.message_seq
      WHERE r.stop_asked = 0 AND m.id = ANY(${ids}))`;
  return rows.map((row) => String(row.id));
}

/** Ends a running answer: its last text, its status, and its run gone. */
export async function finishAnswer(tx: Tx, end: AnswerEnd): Promise<void> {
  const action = `save the answer ${quote(end.id)}`;
  await step(
    action,
    tx`UPDATE messages SET content = ${end.content}, citations = ${JSON.stringify(end.citations)},
      status = ${end.status ?? null}, error = ${end.error ?? null} WHERE id = ${end.id}`,
  );
  await step(
    action,
    tx`DELETE FROM answer_runs WHERE message_seq = (SELECT seq FROM messages WHERE id = ${end.id})`,
  );
}

/** Asks the chat's running answers to stop; their ids. */
export async function askStop(tx: Tx, chatSeq: number): Promise<string[]> {
  const rows = await tx`UPDATE answer_runs SET stop_asked = 1
    WHERE message_seq IN (SELECT seq FROM messages WHERE chat_seq = ${chatSeq})
    RETURNING (SELECT id FROM messages WHERE seq = message_seq) AS id`;
  return rows.map((row) => String(row.id));
}

/** A message of a chat as a write needs it (see `MessageKey`). */
export interface PostgresMessageKey {
  seq: number;
  role: string;
  position: number;
  branch: number | null;
  original: number;
}

/** The chat's message with the id; 404 when the chat has none. */
export async function findMessage(
  tx: Tx,
  chat: { id: string; seq: number },
  id: string,
): Promise<PostgresMessageKey> {
  const [row] = await tx`SELECT seq, role, position, branch_seq,
      COALESCE(original_seq, seq) AS original
    FROM messages WHERE id = ${id} AND chat_seq = ${chat.seq}`;
  if (row === undefined) throw noMessage(chat.id, id);
  return {
    seq: Number(row.seq),
    role: String(row.role),
    position: Number(row.position),
    branch: row.branch_seq === null ? null : Number(row.branch_seq),
    original: Number(row.original),
  };
}

/** The answers rated `rating`, of one user or of all, oldest first. */
export async function ratedAnswers(
  sql: Postgres.Sql,
  rating: string,
  user?: string,
): Promise<RatedAnswer[]> {
  const only = user === undefined ? sql`` : sql`AND u.name = ${user}`;
  const rows = await sql`SELECT u.name AS user, c.id AS chat, q.content AS question, m.citations,
      COALESCE((SELECT json_agg(json_build_object(
          'id', s.id, 'document', json_build_object('id', d.id, 'name', d.name),
          'location', s.location, 'content', s.content, 'num_tokens', s.num_tokens)
          ORDER BY ms.position)
        FROM message_sources ms JOIN sources s ON s.seq = ms.source_seq
        JOIN documents d ON d.seq = s.document_seq
        WHERE ms.message_seq = m.seq), '[]'::json) AS sources
    FROM messages m JOIN messages q ON q.seq = m.question_seq
    JOIN chats c ON c.seq = m.chat_seq JOIN users u ON u.seq = c.user_seq
    WHERE m.role = 'assistant' AND (m.feedback::json ->> 'rating') = ${rating} ${only}
    ORDER BY m.seq`;
  return rows.map((row) =>
    ratedAnswer({
      user: String(row.user),
      chat: String(row.chat),
      question: String(row.question),
      citations: JSON.parse(String(row.citations)),
      sources: row.sources as SourceRecord[],
    })
  );
}

/** Runs one statement of a write; its failure is reported by what it does. */
async function step<T>(action: string, query: Promise<T>): Promise<T> {
  try {
    return await query;
  } catch (error) {
    throw postgresError(`Cannot ${action}`, error);
  }
}
