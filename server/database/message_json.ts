/**
 * Which messages a chat shows, in SQL both engines run, and each message as
 * JSON text written by SQLite: its status while its answer runs, its feedback,
 * and its versions (the answers its question had, the wordings a question had).
 * PostgreSQL writes the same text with its own functions (`postgres_chats.ts`).
 * @module
 */

/**
 * An answer's is the latest of its question's answers: regenerating keeps the
 * others as its versions.
 */
export function latestAnswer(m: string): string {
  return `NOT EXISTS (SELECT 1 FROM messages n
    WHERE n.question_seq = ${m}.question_seq AND n.position > ${m}.position)`;
}

/**
 * The messages of a chat's conversation: the welcome, the questions no edit
 * replaced, and the latest answer of each.
 */
export function inConversation(m: string): string {
  return `(${m}.role = 'system'
    OR (${m}.role = 'user' AND ${m}.branch_seq IS NULL)
    OR (${m}.role = 'assistant' AND ${latestAnswer(m)} AND NOT EXISTS (SELECT 1 FROM messages q
      WHERE q.seq = ${m}.question_seq AND q.branch_seq IS NOT NULL)))`;
}

/**
 * The messages of the branch that an edit took out of the conversation: the
 * questions whose `branch_seq` is `branch` (an SQL expression), and the latest
 * answer of each.
 */
export function inBranch(m: string, branch: string): string {
  return `((${m}.role = 'user' AND ${m}.branch_seq = ${branch})
    OR (${m}.role = 'assistant' AND ${latestAnswer(m)} AND EXISTS (SELECT 1 FROM messages q
      WHERE q.seq = ${m}.question_seq AND q.branch_seq = ${branch})))`;
}

/**
 * The conversation's messages from the question at `position` (an SQL
 * expression) on: the branch of a question that no edit replaced.
 */
export function conversationFrom(m: string, position: string): string {
  return `((${m}.role = 'user' AND ${m}.branch_seq IS NULL AND ${m}.position >= ${position})
    OR (${m}.role = 'assistant' AND ${latestAnswer(m)} AND EXISTS (SELECT 1 FROM messages q
      WHERE q.seq = ${m}.question_seq AND q.branch_seq IS NULL AND q.position >= ${position})))`;
}

/**
 * The messages of the branch of the question `b` (an alias of its row): those
 * an edit of it took out of the conversation, or for a question no edit
 * replaced, the conversation from it on.
 */
export function inQuestionBranch(m: string, b: string): string {
  return `((${b}.branch_seq IS NOT NULL AND ${inBranch(m, `${b}.seq`)})
    OR (${b}.branch_seq IS NULL AND ${conversationFrom(m, `${b}.position`)}))`;
}

/** What a run whose lease passed says: the replica writing it went away. */
export const LOST_ANSWER = "The server writing the answer stopped before it was complete";

/** The time that runs' leases are compared with: `clock.now`, milliseconds, of the query's CTE. */
export const NOW = "(SELECT now FROM clock)";

/**
 * A message's status: "streaming" while its run's lease lasts, "failed" once it
 * passed, else the stored one (null for a complete message).
 */
export function statusOf(m: string): string {
  return `COALESCE((SELECT CASE WHEN r.expires > ${NOW} THEN 'streaming' ELSE 'failed' END
    FROM answer_runs r WHERE r.message_seq = ${m}.seq), ${m}.status)`;
}

/** Why a message did not end complete: the stored reason, or that its run's lease passed. */
export function errorOf(m: string): string {
  return `COALESCE(${m}.error, CASE WHEN EXISTS (SELECT 1 FROM answer_runs r
    WHERE r.message_seq = ${m}.seq AND r.expires <= ${NOW}) THEN '${LOST_ANSWER}' END)`;
}

/** The key of the first version of a question: its own, or the one it is an edit of. */
export function originalOf(m: string): string {
  return `COALESCE(${m}.original_seq, ${m}.seq)`;
}

/** The condition on `v` of the versions of `m`, a question or an answer. */
export function versionsOf(v: string, m: string): string {
  return `(${m}.role = 'assistant' AND ${v}.question_seq = ${m}.question_seq)
    OR (${m}.role = 'user' AND (${v}.seq = ${originalOf(m)} OR ${v}.original_seq = ${
    originalOf(m)
  }))`;
}

/** Whether `m` has versions: two answers to its question, or an edit of its first wording. */
export function hasVersions(m: string): string {
  return `((${m}.role = 'assistant' AND EXISTS (SELECT 1 FROM messages n
      WHERE n.question_seq = ${m}.question_seq AND n.seq != ${m}.seq))
    OR (${m}.role = 'user' AND EXISTS (SELECT 1 FROM messages n
      WHERE n.original_seq = ${originalOf(m)})))`;
}

/**
 * The SQLite expression of a message `m` as JSON text, keys in the order of
 * the API's `Message`: the optional ones (status, error, feedback, versions)
 * only when set. With `versions`, an answer or question that has versions
 * lists them all, itself last.
 */
export function messageJson(m: string, versions: boolean): string {
  const v = `${m}v`;
  const listed = versions
    ? `, 'versions', CASE WHEN ${hasVersions(m)} THEN json((SELECT json_group_array(
        ${messageJson(v, false)} ORDER BY ${v}.position) FROM messages ${v}
        WHERE ${versionsOf(v, m)})) END`
    : "";
  return `json_patch(json_object(
      'id', ${m}.id, 'content', ${m}.content, 'role', ${m}.role,
      'sources', json((SELECT json_group_array(json_object(
          'id', s.id, 'document', json_object('id', d.id, 'name', d.name),
          'location', s.location, 'content', s.content, 'num_tokens', s.num_tokens)
          ORDER BY ms.position)
        FROM message_sources ms JOIN sources s ON s.seq = ms.source_seq
        JOIN documents d ON d.seq = s.document_seq
        WHERE ms.message_seq = ${m}.seq)),
      'timestamp', ${m}.timestamp, 'citations', json(${m}.citations)),
    -- A null patches nothing in: a complete message has no status, and so on.
    json_object('status', ${statusOf(m)}, 'error', ${errorOf(m)},
      'feedback', json(${m}.feedback)${listed}))`;
}
