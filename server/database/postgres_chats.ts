/**
 * The SQL of reading chats on PostgreSQL: the JSON text of a user's chats,
 * byte for byte the text that libSQL writes (`chatsJsonQuery`), and the
 * chats' summaries.
 * @module
 */
import type * as Postgres from "npm:postgres@3.4.9";
import { QUESTION_ORDER } from "./messages.ts";
import type { ChatSummary } from "./records.ts";

/**
 * The user's chats (or only the one with `id`), oldest first, as the JSON
 * text of `Database.listChats`: keys in the same order, no spaces. Built as
 * text, with `to_json()` quoting each string, since PostgreSQL's own JSON
 * functions put spaces between keys and values.
 */
export async function chatsJson(sql: Postgres.Sql, user: string, id?: string): Promise<string> {
  const only = id === undefined ? sql`` : sql`AND c.id = ${id}`;
  const [row] = await sql<{ chats: string }[]>`
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
        || ',"messages":[' || COALESCE((SELECT string_agg(
            '{"id":' || to_json(m.id)::text || ',"content":' || to_json(m.content)::text
            || ',"role":' || to_json(m.role)::text
            || ',"sources":[' || COALESCE((SELECT string_agg(
                '{"id":' || to_json(s.id)::text
                || ',"document":{"id":' || to_json(d.id)::text
                || ',"name":' || to_json(d.name)::text || '}'
                || ',"location":' || to_json(s.location)::text
                || ',"content":' || to_json(s.content)::text
                || ',"num_tokens":' || s.num_tokens || '}', ',' ORDER BY ms.position)
              FROM message_sources ms JOIN sources s ON s.seq = ms.source_seq
              JOIN documents d ON d.seq = s.document_seq
              WHERE ms.message_seq = m.seq), '') || ']'
            || ',"timestamp":' || to_json(m.timestamp)::text
            || ',"citations":' || m.citations
            -- Only an answer that did not end complete has a status.
            || COALESCE(',"status":' || to_json(m.status)::text, '') || '}', ','
            ORDER BY ${sql.unsafe(QUESTION_ORDER)})
          FROM messages m WHERE m.chat_seq = c.seq), '')
        || '],"prepared":' || CASE WHEN c.prepared = 1 THEN 'true' ELSE 'false' END || '}' AS chat
      FROM chats c WHERE c.user_seq = (SELECT seq FROM users WHERE name = ${user}) ${only}
    ) listed`;
  return row!.chats;
}

/** The user's chats without their messages, oldest first. */
export async function chatSummaries(sql: Postgres.Sql, user: string): Promise<ChatSummary[]> {
  const rows = await sql`
    SELECT c.id, c.name, c.source_storage, c.assistant, c.params, c.prepared,
      (SELECT COUNT(*) FROM messages m WHERE m.chat_seq = c.seq) AS num_messages,
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
