/**
 * An authentication set up as the server sets it up, over an in-memory
 * database, for the tests of the classes themselves.
 * @module
 */
import type { Authentication } from "../../../server/auth/authentication.ts";
import { Sessions } from "../../../server/auth/sessions.ts";
import { type Database, openDatabase } from "../../../server/database/mod.ts";

/** The authentication, its database and what it warned of; disposing closes the database. */
export interface SetUp<T extends Authentication> extends AsyncDisposable {
  auth: T;
  database: Database;
  sessions: Sessions;
  warnings: string[];
}

/** Options of {@linkcode setUp}. */
export interface SetUpOptions {
  /** @default {"k".repeat(32)} */
  secret?: string;
  /** The sessions' clock. */
  now?: () => Date;
  /** An open database to use instead of a new one, which is then left open. */
  database?: Database;
}

/** Sets `auth` up with sessions in a new in-memory database. */
export async function setUp<T extends Authentication>(
  auth: T,
  options: SetUpOptions = {},
): Promise<SetUp<T>> {
  const database = options.database ?? await openDatabase("sqlite://", { localRoot: "." });
  const sessions = new Sessions({
    database,
    key: options.secret ?? "k".repeat(32),
    now: options.now,
  });
  const warnings: string[] = [];
  await auth.setUp({ sessions, database, warn: (message) => warnings.push(message) });
  return {
    auth,
    database,
    sessions,
    warnings,
    async [Symbol.asyncDispose]() {
      if (!options.database) await database.close();
    },
  };
}

/** A login request to `POST /token`. */
export function login(username?: string, password?: string): Request {
  const body = new URLSearchParams();
  if (username !== undefined) body.set("username", username);
  if (password !== undefined) body.set("password", password);
  return new Request("http://svc/token", { method: "POST", body });
}

/** A request with a bearer token. */
export function bearer(token: string): Request {
  return new Request("http://svc/chats", { headers: { authorization: `Bearer ${token}` } });
}
