/**
 * The schema, as an ordered list of migrations, and how a database is brought
 * up to date when it is opened.
 * @module
 */
import type { Client, Transaction } from "@libsql/client";
import { quote, SvcError } from "../../components/core/errors.ts";

/** One step of the schema: the statements that take version `version - 1` to `version`. */
export interface Migration {
  version: number;
  statements: string[];
}

/**
 * Every migration, oldest first. Append to this list; never edit a migration
 * that was released, since databases out there already ran it.
 *
 * Internal keys are integers (`seq`) so that links and indexes stay small; the
 * ids the REST API shows are `id` columns. Order is explicit (`position`, or
 * `seq` for chats), never a timestamp, so that equal timestamps keep order.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE users (
        seq INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE
      )`,
      `CREATE TABLE documents (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        user_seq INTEGER NOT NULL REFERENCES users (seq),
        name TEXT NOT NULL,
        metadata TEXT NOT NULL
      )`,
      "CREATE INDEX documents_by_user ON documents (user_seq)",
      `CREATE TABLE chats (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        user_seq INTEGER NOT NULL REFERENCES users (seq),
        name TEXT NOT NULL,
        source_storage TEXT NOT NULL,
        assistant TEXT NOT NULL,
        params TEXT NOT NULL,
        prepared INTEGER NOT NULL CHECK (prepared IN (0, 1))
      )`,
      "CREATE INDEX chats_by_user ON chats (user_seq, seq)",
      // The name is kept as the chat was created with it, so that the chat's
      // metadata comes back exactly as it was sent.
      `CREATE TABLE chat_documents (
        chat_seq INTEGER NOT NULL REFERENCES chats (seq) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        document_seq INTEGER NOT NULL REFERENCES documents (seq),
        name TEXT NOT NULL,
        PRIMARY KEY (chat_seq, position)
      ) WITHOUT ROWID`,
      "CREATE INDEX chat_documents_by_document ON chat_documents (document_seq)",
      `CREATE TABLE messages (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        chat_seq INTEGER NOT NULL REFERENCES chats (seq) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
        content TEXT NOT NULL,
        timestamp TEXT NOT NULL,
        UNIQUE (chat_seq, position)
      )`,
      // A source id is the source storage's; scoping it to its document keeps
      // one user's sources from ever being reused for another's.
      `CREATE TABLE sources (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL,
        document_seq INTEGER NOT NULL REFERENCES documents (seq),
        location TEXT NOT NULL,
        content TEXT NOT NULL,
        num_tokens INTEGER NOT NULL,
        UNIQUE (document_seq, id)
      )`,
      `CREATE TABLE message_sources (
        message_seq INTEGER NOT NULL REFERENCES messages (seq) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        source_seq INTEGER NOT NULL REFERENCES sources (seq),
        PRIMARY KEY (message_seq, position)
      ) WITHOUT ROWID`,
      "CREATE INDEX message_sources_by_source ON message_sources (source_seq)",
    ],
  },
  {
    version: 2,
    statements: [
      // A user's password, as an argon2id hash in its PHC string form, which
      // carries its own salt and costs.
      `CREATE TABLE accounts (
        user_seq INTEGER PRIMARY KEY REFERENCES users (seq),
        password_hash TEXT NOT NULL,
        created INTEGER NOT NULL,
        updated INTEGER NOT NULL
      )`,
      // Every session token names its row: logging out deletes it, and a
      // token without one is refused, on every process that shares the database.
      // Times are seconds since the epoch, as in the tokens.
      `CREATE TABLE sessions (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        user_seq INTEGER NOT NULL REFERENCES users (seq),
        created INTEGER NOT NULL,
        expires INTEGER NOT NULL
      )`,
      "CREATE INDEX sessions_by_user ON sessions (user_seq)",
      "CREATE INDEX sessions_by_expiry ON sessions (expires)",
    ],
  },
  {
    version: 3,
    statements: [
      // The API keys of programs. Only the SHA-256 of a key is kept, and a key
      // is found by it; `prefix` is its first characters, shown so that a user
      // recognises it. Times are seconds since the epoch; `last_used` is null
      // until the key is first used.
      `CREATE TABLE api_keys (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        user_seq INTEGER NOT NULL REFERENCES users (seq),
        name TEXT NOT NULL,
        prefix TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        created INTEGER NOT NULL,
        last_used INTEGER
      )`,
      "CREATE INDEX api_keys_by_user ON api_keys (user_seq, seq)",
    ],
  },
  {
    version: 4,
    statements: [
      // The sources a message cites with its [n] markers: their ranks among the
      // message's sources, from 1, as a JSON array in the order first cited.
      "ALTER TABLE messages ADD COLUMN citations TEXT NOT NULL DEFAULT '[]'",
    ],
  },
  {
    version: 5,
    statements: [
      // How an answer ended when it did not end complete (null): 'stopped' by
      // its reader, or 'failed'; its content is what was written by then.
      `ALTER TABLE messages ADD COLUMN status TEXT
        CHECK (status IS NULL OR status IN ('stopped', 'failed'))`,
    ],
  },
  {
    version: 6,
    statements: [
      // Failed logins by user ("user:ada") and by address ("address:10.0.0.1"), at milliseconds
      // since the epoch: in the database, so that every replica counts them all.
      // BIGINT, which SQLite reads as INTEGER, so that PostgreSQL runs the same statements.
      "CREATE TABLE login_failures (key TEXT NOT NULL, at BIGINT NOT NULL)",
      "CREATE INDEX login_failures_by_key ON login_failures (key, at)",
    ],
  },
  {
    version: 7,
    statements: [
      // Every login checked, counted before its password is: a row is written, in the statement
      // that counts those before it, only while the limits leave room, so that logins tried at
      // once cannot all be checked. A success takes back the rows of its user from its address.
      // `address` is the client's (its /64 for IPv6), or '' when unknown; times are milliseconds.
      "DROP TABLE login_failures",
      `CREATE TABLE login_attempts (
        id TEXT NOT NULL PRIMARY KEY,
        user_name TEXT NOT NULL,
        address TEXT NOT NULL,
        at BIGINT NOT NULL
      )`,
      "CREATE INDEX login_attempts_by_user ON login_attempts (user_name, address, at)",
      "CREATE INDEX login_attempts_by_address ON login_attempts (address, at)",
      "CREATE INDEX login_attempts_by_time ON login_attempts (at)",
      // When a document was registered, in seconds since the epoch, so that a registration whose
      // file never came can be told and removed; null for those registered before this version.
      "ALTER TABLE documents ADD COLUMN registered BIGINT",
    ],
  },
  {
    version: 8,
    statements: [
      // The question an answer answers: answers written at once in one chat are stored in the
      // order they end, so the answer of a question is not always the message after it.
      // BIGINT, which SQLite reads as INTEGER, so that PostgreSQL runs the same statements.
      `ALTER TABLE messages ADD COLUMN question_seq BIGINT
        REFERENCES messages (seq) ON DELETE CASCADE`,
      // Until now an answer's question was the nearest question before it.
      `UPDATE messages SET question_seq = (SELECT q.seq FROM messages q
          WHERE q.chat_seq = messages.chat_seq AND q.role = 'user'
            AND q.position < messages.position
          ORDER BY q.position DESC LIMIT 1)
        WHERE role = 'assistant'`,
      "CREATE INDEX messages_by_question ON messages (question_seq)",
    ],
  },
  {
    version: 9,
    statements: [
      // An answer still being written: a row while it runs, gone once it ended. Its message holds
      // the text so far. Any replica asks it to stop by `stop_asked`, which the replica writing it
      // reads; that replica extends `expires` (milliseconds since the epoch) while it runs, so
      // that the answer of a replica that died is told as failed once its lease is over.
      `CREATE TABLE answer_runs (
        message_seq BIGINT NOT NULL PRIMARY KEY REFERENCES messages (seq) ON DELETE CASCADE,
        stop_asked INTEGER NOT NULL DEFAULT 0 CHECK (stop_asked IN (0, 1)),
        expires BIGINT NOT NULL
      )`,
      // Why an answer did not end complete, in words, for whoever reads it later.
      "ALTER TABLE messages ADD COLUMN error TEXT",
      // What the user thought of an answer: JSON {rating: "good" | "bad", note?, timestamp}.
      "ALTER TABLE messages ADD COLUMN feedback TEXT",
      // An edited question is a version of the first one (`original_seq`); the question it
      // replaced, and the questions after it, leave the conversation for the branch of the
      // replaced one (`branch_seq`: null while in the conversation). Answers follow their question.
      `ALTER TABLE messages ADD COLUMN original_seq BIGINT
        REFERENCES messages (seq) ON DELETE CASCADE`,
      `ALTER TABLE messages ADD COLUMN branch_seq BIGINT
        REFERENCES messages (seq) ON DELETE CASCADE`,
      "CREATE INDEX messages_by_original ON messages (original_seq)",
      "CREATE INDEX messages_by_branch ON messages (branch_seq)",
    ],
  },
];

/** The table that holds the schema version; its name says whose it is. */
export const VERSION_TABLE = "svc_schema";

/** Options of {@linkcode migrate}. */
export interface MigrateOptions {
  /** How the database is named in messages: its URL. */
  name: string;
  /** @default {MIGRATIONS} */
  migrations?: readonly Migration[];
}

/**
 * Brings the database up to the newest schema, in one write transaction, and
 * returns its version. A database whose version is newer than these migrations,
 * or that holds tables but no version (for example one of svc 0.2.x), is
 * refused with an `SvcError` that says what to do.
 */
export async function migrate(client: Client, options: MigrateOptions): Promise<number> {
  const migrations = options.migrations ?? MIGRATIONS;
  const latest = migrations.at(-1)?.version ?? 0;
  // Checked inside the write transaction so that two processes opening a new
  // file at once do not both create the schema.
  const tx = await client.transaction("write");
  try {
    const version = await readVersion(tx, options.name);
    if (version > latest) {
      throw new SvcError(
        `Cannot open the database ${quote(options.name)}: its schema version ${version} is newer ` +
          `than this svc knows (${latest}); upgrade svc, or point database_url elsewhere`,
      );
    }
    for (const migration of migrations) {
      if (migration.version <= version) continue;
      await tx.batch(migration.statements);
    }
    if (latest > version) {
      await tx.execute({
        sql: `INSERT INTO ${VERSION_TABLE} (id, version) VALUES (1, ?)
          ON CONFLICT (id) DO UPDATE SET version = excluded.version`,
        args: [latest],
      });
    }
    await tx.commit();
    return latest;
  } finally {
    tx.close();
  }
}

async function readVersion(tx: Transaction, name: string): Promise<number> {
  const tables = (await tx.execute(
    `SELECT name FROM sqlite_master WHERE type = 'table'
      AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE 'libsql\\_%' ESCAPE '\\'
      ORDER BY name`,
  )).rows.map((row) => String(row.name));
  if (tables.includes(VERSION_TABLE)) {
    const row = (await tx.execute(`SELECT version FROM ${VERSION_TABLE} WHERE id = 1`)).rows[0];
    return Number(row?.version ?? 0);
  }
  if (tables.length > 0) {
    const listed = tables.slice(0, 5).map(quote).join(", ") + (tables.length > 5 ? ", ..." : "");
    throw new SvcError(
      `Cannot open the database ${quote(name)}: it holds tables (${listed}) but no svc schema ` +
        "version, so it was not made by this svc (a database of svc 0.2.x is not read); " +
        "delete it, or point database_url elsewhere",
    );
  }
  await tx.execute(
    `CREATE TABLE ${VERSION_TABLE} (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      version INTEGER NOT NULL
    )`,
  );
  return 0;
}
