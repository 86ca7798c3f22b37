/**
 * The SQL of reading chats on PostgreSQL: the JSON text of a user's chats, or
 * of some messages of one, byte for byte the text that libSQL writes
 * (`chatsJsonQuery`, `messagesJsonQuery`), and the chats' summaries.
 * @module
 */
import type * as Postgres from "npm:postgres@3.4.9";
import { errorOf, hasVersions, inConversation, statusOf, versionsOf } from "./message_json.ts";
import { QUESTION_ORDER } from "./messages.ts";
import type { ChatSummary } from "./records.ts";

/**
 * A message `m` as JSON text, byte for byte what SQLite writes
 * (`messageJson`): the optional keys only when set, and with `versions`, the
 * versions of an answer or question that has them.
 */
export function messageText(m: string, versions: boolean): string {
  const v = `${m}v`;
  const listed = versions
    ? `|| COALESCE(',"versions":[' || CASE WHEN ${hasVersions(m)} THEN (SELECT string_agg(
        ${messageText(v, false)}, ',' ORDER BY ${v}.position) FROM messages ${v}
        WHERE ${versionsOf(v, m)}) END || ']', '')`
    : "";
  return `'{"id":' || to_json(${m}.id)::text || ',"content":' || to_json(${m}.content)::text
    || ',"role":' || to_json(${m}.role)::text
    || ',"sources":[' || COALESCE((SELECT string_agg(
        '{"id":' || to_json(s.id)::text
        || ',"document":{"id":' || to_json(d.id)::text
        || ',"name":' || to_json(d.name)::text || '}'
        || ',"location":' || to_json(s.location)::text
        || ',"content":' || to_json(s.content)::text
        || ',"num_tokens":' || s.num_tokens || '}', ',' ORDER BY ms.position)
      FROM message_sources ms JOIN sources s ON s.seq = ms.source_seq
      JOIN documents d ON d.seq = s.document_seq
      WHERE ms.message_seq = ${m}.seq), '') || ']'
    || ',"timestamp":' || to_json(${m}.timestamp)::text
    || ',"citations":' || ${m}.citations
    || COALESCE(',"status":' || to_json(${statusOf(m)})::text, '')
    || COALESCE(',"error":' || to_json(${errorOf(m)})::text, '')
    || COALESCE(',"feedback":' || ${m}.feedback, '')
    ${listed} || '}'`;
}

/**
 * The user's chats (or only the one with `id`), oldest first, as the JSON
 * text of `Database.listChats`: keys in the same order, no spaces. Built as
 * text, with `to_json()` quoting each string, since PostgreSQL's own JSON
 * functions put spaces between keys and values. `now` (milliseconds) is when
 * answers' runs are read.
 */
export async function chatsJson(
  sql: Postgres.Sql,
  user: string,
  id?: string,
  now: number = Date.now(),
): Promise<string> {
  const only = id === undefined ? sql`` : sql`AND c.id = ${id}`;
  const [row] = await sql<{ chats: string }[]>`
    WITH clock (now) AS (SELECT ${now}::bigint)
    SELECT '[' || COALESCE(string_agg(chat, ',' ORDER BY seq), '') || ']' AS chats FROM (
      SELECT c.seq, '{"id":' || to_json(c.id)::text
        || ',"metadata":{"name":' || to_json(c.name)::text
        || ',"source_storage":' || to_json(c.source_storage)::text
        || ',"assistant":' || to_json(c.assistant)::text
        || ',"params":' || c.params
        || ',"documents":[' || COALESCE((SELECT string_agg(
            '{"id":' || to_json(d.id)::text || ',"name":' || to_json(cd.name)::text || '}',
            ',' ORDER BY cd.position)
          FROM chat_documents cd JOIN documents d ON d.seq = cd.document_seq
          WHERE cd.chat_seq = c.seq), '') || ']}'
        || ',"messages":[' || COALESCE((SELECT string_agg(${sql.unsafe(messageText("m", true))},
            ',' ORDER BY ${sql.unsafe(QUESTION_ORDER)})
          FROM messages m WHERE m.chat_seq = c.seq AND ${sql.unsafe(inConversation("m"))}), '')
        || '],"prepared":' || CASE WHEN c.prepared = 1 THEN 'true' ELSE 'false' END || '}' AS chat
      FROM chats c WHERE c.user_seq = (SELECT seq FROM users WHERE name = ${user}) ${only}
    ) listed`;
  return row!.chats;
}

/**
 * The messages of the user's chat that `where` selects (a condition on `m`),
 * as JSON text, in the order the chat lists them; `undefined` when the user
 * has no such chat.
 */
export async function messagesJson(
  sql: Postgres.Sql,
  user: string,
  chatId: string,
  where: Postgres.PendingQuery<Postgres.Row[]>,
  now: number = Date.now(),
): Promise<string | undefined> {
  const [row] = await sql<{ chat: string | null; messages: string }[]>`
    WITH clock (now) AS (SELECT ${now}::bigint),
      chat (seq) AS (SELECT c.seq FROM chats c JOIN users u ON u.seq = c.user_seq
        WHERE c.id = ${chatId} AND u.name = ${user})
    SELECT (SELECT seq FROM chat) AS chat, '[' || COALESCE((SELECT string_agg(
        ${sql.unsafe(messageText("m", true))}, ',' ORDER BY ${sql.unsafe(QUESTION_ORDER)})
      FROM messages m WHERE m.chat_seq = (SELECT seq FROM chat) AND ${where}), '') || ']'
      AS messages`;
  return row?.chat === null || row?.chat === undefined ? undefined : row.messages;
}

/** The user's chats without their messages, oldest first. */
export async function chatSummaries(sql: Postgres.Sql, user: string): Promise<ChatSummary[]> {
  const rows = await sql`
    SELECT c.id, c.name, c.source_storage, c.assistant, c.params, c.prepared,
      (SELECT COUNT(*) FROM messages m WHERE m.chat_seq = c.seq
        AND ${sql.unsafe(inConversation("m"))}) AS num_messages,
      (SELECT m.timestamp FROM messages m WHERE m.chat_seq = c.seq
        ORDER BY m.position DESC LIMIT 1) AS last_activity,
      COALESCE((SELECT json_agg(json_build_object('id', d.id, 'name', cd.name)
          ORDER BY cd.position)
        FROM chat_documents cd JOIN documents d ON d.seq = cd.document_seq
        WHERE cd.chat_seq = c.seq), '[]'::json) AS documents
    FROM chats c WHERE c.user_seq = (SELECT seq FROM users WHERE name = ${user}) ORDER BY c.seq`;
  return rows.map((row) => ({
    id: String(row.id),
    metadata: {
      name: String(row.name),
      source_storage: String(row.source_storage),
      assistant: String(row.assistant),
      params: JSON.parse(String(row.params)),
      documents: row.documents,
    },
    prepared: Number(row.prepared) === 1,
    num_messages: Number(row.num_messages),
    last_activity: row.last_activity === null ? null : String(row.last_activity),
  }));
}
