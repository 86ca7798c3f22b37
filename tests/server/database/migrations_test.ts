import { type Client, createClient } from "@libsql/client";
import assert from "node:assert/strict";
import { migrate, type Migration, MIGRATIONS } from "../../../server/database/migrations.ts";
import { svcError } from "./_helpers.ts";

const v1: Migration = { version: 1, statements: ["CREATE TABLE notes (id TEXT PRIMARY KEY)"] };
const v2: Migration = {
  version: 2,
  statements: [
    "ALTER TABLE notes ADD COLUMN body TEXT NOT NULL DEFAULT ''",
    "CREATE INDEX notes_by_body ON notes (body)",
  ],
};

async function tables(client: Client): Promise<string[]> {
  const { rows } = await client.execute(
    "SELECT name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name",
  );
  return rows.map((row) => String(row.name)).filter((name) => !name.startsWith("sqlite_"));
}

Deno.test("migrate() creates the schema of a new database and records its version", async () => {
  const client = createClient({ url: ":memory:" });
  try {
    assert.equal(await migrate(client, { name: "sqlite://" }), MIGRATIONS.at(-1)!.version);
    assert.deepEqual(await tables(client), [
      "accounts",
      "answer_runs",
      "api_keys",
      "api_keys_by_user",
      "chat_documents",
      "chat_documents_by_document",
      "chats",
      "chats_by_user",
      "documents",
      "documents_by_user",
      "login_attempts",
      "login_attempts_by_address",
      "login_attempts_by_time",
      "login_attempts_by_user",
      "message_sources",
      "message_sources_by_source",
      "messages",
      "messages_by_branch",
      "messages_by_original",
      "messages_by_question",
      "sessions",
      "sessions_by_expiry",
      "sessions_by_user",
      "sources",
      "svc_schema",
      "users",
    ]);
    // Opening it again changes nothing.
    assert.equal(await migrate(client, { name: "sqlite://" }), MIGRATIONS.at(-1)!.version);
  } finally {
    client.close();
  }
});

Deno.test("migrate() applies only the migrations an older database lacks, in order", async () => {
  const client = createClient({ url: ":memory:" });
  try {
    assert.equal(await migrate(client, { name: "db", migrations: [v1] }), 1);
    await client.execute("INSERT INTO notes (id) VALUES ('kept')");
    assert.equal(await migrate(client, { name: "db", migrations: [v1, v2] }), 2);
    assert.deepEqual(
      (await client.execute("SELECT id, body FROM notes")).rows.map((r) => ({ ...r })),
      [
        { id: "kept", body: "" },
      ],
    );
    assert.equal((await client.execute("SELECT version FROM svc_schema")).rows[0]!.version, 2);
  } finally {
    client.close();
  }
});

Deno.test("migrate() leaves the database as it was when a migration fails", async () => {
  const client = createClient({ url: ":memory:" });
  try {
    await migrate(client, { name: "db", migrations: [v1] });
    const broken: Migration = {
      version: 2,
      statements: ["CREATE TABLE more (id TEXT)", "CREATE TABLE notes (id TEXT)"],
    };
    await assert.rejects(migrate(client, { name: "db", migrations: [v1, broken] }), /notes/);
    assert.deepEqual(await tables(client), ["notes", "svc_schema"]);
    assert.equal((await client.execute("SELECT version FROM svc_schema")).rows[0]!.version, 1);
  } finally {
    client.close();
  }
});

Deno.test("migrate() refuses a database newer than its migrations", async () => {
  const client = createClient({ url: ":memory:" });
  try {
    await migrate(client, { name: "db", migrations: [v1, v2] });
    await assert.rejects(
      migrate(client, { name: "db", migrations: [v1] }),
      svcError(
        500,
        /^Cannot open the database "db": its schema version 2 is newer than this svc knows \(1\)/,
      ),
    );
  } finally {
    client.close();
  }
});

Deno.test("migrate() gives the messages of a database of version 3 no citations", async () => {
  const client = createClient({ url: ":memory:" });
  try {
    await migrate(client, { name: "db", migrations: MIGRATIONS.slice(0, 3) });
    await client.batch([
      "INSERT INTO users (seq, name) VALUES (1, 'ada')",
      `INSERT INTO chats (seq, id, user_seq, name, source_storage, assistant, params, prepared)
        VALUES (1, 'c', 1, 'chat', 'S', 'A', '{}', 1)`,
      `INSERT INTO messages (id, chat_seq, position, role, content, timestamp)
        VALUES ('m', 1, 0, 'assistant', 'As [1] says', '2026-11-26T00:00:00.000Z')`,
    ]);
    assert.equal(await migrate(client, { name: "db" }), MIGRATIONS.at(-1)!.version);
    const { rows } = await client.execute("SELECT id, citations FROM messages");
    assert.deepEqual(rows.map((row) => ({ ...row })), [{ id: "m", citations: "[]" }]);
  } finally {
    client.close();
  }
});

Deno.test("migrate() links each answer of an older database to the nearest question before it", async () => {
  const client = createClient({ url: ":memory:" });
  try {
    const before = MIGRATIONS.filter((migration) => migration.version < 8);
    await migrate(client, { name: "db", migrations: before });
    const message = (id: string, position: number, role: string) =>
      `INSERT INTO messages (id, chat_seq, position, role, content, timestamp)
        VALUES ('${id}', 1, ${position}, '${role}', '', '2026-11-26T00:00:00.000Z')`;
    await client.batch([
      "INSERT INTO users (seq, name) VALUES (1, 'ada')",
      `INSERT INTO chats (seq, id, user_seq, name, source_storage, assistant, params, prepared)
        VALUES (1, 'c', 1, 'chat', 'S', 'A', '{}', 1)`,
      message("welcome", 0, "system"),
      message("q1", 1, "user"),
      message("a1", 2, "assistant"),
      message("q2", 3, "user"),
      message("q3", 4, "user"),
      message("a3", 5, "assistant"),
      message("a3-again", 6, "assistant"),
    ]);
    assert.equal(await migrate(client, { name: "db" }), MIGRATIONS.at(-1)!.version);
    const { rows } = await client.execute(`SELECT m.id, q.id AS question FROM messages m
      LEFT JOIN messages q ON q.seq = m.question_seq ORDER BY m.position`);
    assert.deepEqual(rows.map((row) => [row.id, row.question]), [
      ["welcome", null],
      ["q1", null],
      ["a1", "q1"],
      ["q2", null],
      ["q3", null],
      ["a3", "q3"],
      ["a3-again", "q3"],
    ]);
  } finally {
    client.close();
  }
});
