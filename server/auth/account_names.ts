/**
 * The names of the accounts of password sign-in, kept in one spelling each
 * (`usernames.ts`): how a typed name finds its account, and how the accounts
 * made before names were normalised get their one spelling.
 *
 * An account made before is renamed to its normalised name, with its
 * documents, chats, sessions and keys, when it can be. Two such accounts
 * whose names become one (`Alice` and `alice`), or one whose name is now
 * refused (`аlice` with a Cyrillic `а`), keep their names as they are: each
 * still signs in with its exact spelling, so that no user loses an account
 * when svc is upgraded, and `svc user list` and the API's start say which
 * they are, for an administrator to remove or keep.
 * @module
 */
import { quote } from "../../components/core/errors.ts";
import type { Database } from "../database/mod.ts";
import { foldUsername, MAX_USERNAME_LENGTH, usernameProblem } from "./usernames.ts";

/** An account found from a typed name: its user, as the data is kept under it, and its hash. */
export interface FoundAccount {
  user: string;
  hash: string;
}

/**
 * The account a typed username signs in to: the one of exactly that name,
 * else the one of its normalised name, else none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openDatabase } from "../database/mod.ts";
 * import { findAccount } from "./account_names.ts";
 * const database = await openDatabase("sqlite://", { localRoot: "." });
 * await database.addAccount("alice", "hash", 0);
 * assert.deepEqual(await findAccount(database, "ＡＬＩＣＥ"), { user: "alice", hash: "hash" });
 * assert.equal(await findAccount(database, "bob"), undefined);
 * await database.close();
 * ```
 */
export async function findAccount(
  database: Database,
  typed: string,
): Promise<FoundAccount | undefined> {
  if (typed.length > 4 * MAX_USERNAME_LENGTH) return undefined;
  const exact = await database.passwordHash(typed);
  if (exact !== undefined) return { user: typed, hash: exact };
  if (usernameProblem(typed) !== undefined) return undefined;
  const folded = foldUsername(typed);
  if (folded === typed) return undefined;
  const hash = await database.passwordHash(folded);
  return hash === undefined ? undefined : { user: folded, hash };
}

/**
 * The name the login limits count a typed username under: its normalised
 * name, so that `Alice` and `alice` are counted together, or the name as it
 * is when it cannot be normalised; `undefined` for a name far longer than any
 * account's, which is refused without being counted.
 */
export function loginKey(typed: string): string | undefined {
  if (typed.length > 4 * MAX_USERNAME_LENGTH) return undefined;
  return usernameProblem(typed) === undefined ? foldUsername(typed) : typed;
}

/**
 * Renames every account whose name is not in its one spelling to it, where
 * that name is free, and says what it did, one sentence an account: which
 * were renamed, and which keep a name of another spelling and why. Running it
 * again renames nothing more.
 */
export async function normalizeAccountNames(database: Database): Promise<string[]> {
  const notes: string[] = [];
  for (const { user } of await database.listAccounts(0)) {
    const problem = usernameProblem(user);
    if (problem !== undefined) {
      notes.push(
        `The account ${quote(user)} has a name svc now refuses (${problem}): it signs in only ` +
          'with that exact spelling; remove it with "svc user remove" if it is not wanted',
      );
      continue;
    }
    const folded = foldUsername(user);
    if (folded === user) continue;
    const renamed = await database.renameUser(user, folded).catch(() => false);
    notes.push(
      renamed
        ? `The account ${quote(user)} is now ${quote(folded)}, with its documents and chats: ` +
          "usernames are kept in one spelling, and any spelling of it signs in; its sessions " +
          "have ended"
        : `The account ${quote(user)} keeps its name: its normalised name ${quote(folded)} is ` +
          "another user's, so it signs in only with its exact spelling; remove one of them " +
          'with "svc user remove" if they are one person',
    );
  }
  return notes;
}
