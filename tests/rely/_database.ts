/**
 * Checks of a database file that no server has open: its integrity, and that
 * no row points at nothing or is left unreferenced.
 * @module
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";

/** What {@linkcode checkDatabase} found besides the problems. */
export interface DatabaseSummary {
  chats: number;
  messages: number;
  documents: number;
}

/** Queries whose rows are problems, by what a row means. */
const PROBLEMS: Record<string, string> = {
  "a row points at a missing row": "PRAGMA foreign_key_check",
  "a source no message links to": `SELECT s.seq FROM sources s
    WHERE NOT EXISTS (SELECT 1 FROM message_sources ms WHERE ms.source_seq = s.seq)`,
  "a chat's messages are not numbered 0, 1, 2, ...": `SELECT chat_seq FROM messages
    GROUP BY chat_seq HAVING MIN(position) != 0 OR MAX(position) != COUNT(*) - 1`,
  "a prepared chat without its welcome message": `SELECT c.seq FROM chats c WHERE c.prepared = 1
    AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.chat_seq = c.seq AND m.role = 'system')`,
  "a welcome message in a chat that is not prepared": `SELECT c.seq FROM chats c
    WHERE c.prepared = 0 AND EXISTS (
      SELECT 1 FROM messages m WHERE m.chat_seq = c.seq AND m.role = 'system')`,
};

/**
 * Opens the file read-only and asserts `PRAGMA integrity_check` is `ok` and
 * that none of the {@linkcode PROBLEMS} occurs; returns the counts of rows.
 */
export function checkDatabase(path: string): DatabaseSummary {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const integrity = db.prepare("PRAGMA integrity_check").all().map((row) => row.integrity_check);
    assert.deepEqual(integrity, ["ok"], `integrity_check of ${path}`);
    for (const [problem, sql] of Object.entries(PROBLEMS)) {
      const rows = db.prepare(sql).all();
      assert.deepEqual(rows, [], `${problem}: ${JSON.stringify(rows)}`);
    }
    const count = (table: string) =>
      Number(db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get()!.n);
    return { chats: count("chats"), messages: count("messages"), documents: count("documents") };
  } finally {
    db.close();
  }
}
