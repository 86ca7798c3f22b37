/**
 * Deleting a chat: its record first, in one write of the database, then what
 * its source storage kept for it. A deletion the database refuses (a full
 * disk, a database that does not answer) leaves the chat as it was, its
 * storage's indexes and all. A storage that cannot forget a deleted chat yet
 * is asked again later, in the background: forgetting is idempotent, so
 * nothing of a deleted chat stays for good while svc runs. A document taken
 * out of a chat is forgotten by the chat's storage too, once.
 * @module
 */
import { quote } from "../../components/core/errors.ts";
import type { SourceStorage } from "../../components/core/component.ts";
import { LocalDocument } from "../../components/core/document.ts";
import type { ChatRecord } from "../database/mod.ts";
import { type Log, logLine } from "../log.ts";
import type { ApiDeps } from "./env.ts";

/** How long the storage is given before each new try, in milliseconds: then each minute. */
const RETRY_DELAYS_MS = [1_000, 5_000, 15_000, 60_000];
/** How many times a storage is asked in all before it is given up on. */
const TRIES = 30;

/**
 * Deletes the user's chat of `record` from the database, then from its source
 * storage. Settles once the chat is gone from the database; the storage's
 * part is tried again later when it fails (see the module's documentation).
 *
 * @throws {SvcError} as `Database.deleteChat` does: 404 for a chat that is
 * missing or another user's; 503 or 507 when the database refuses, and then
 * nothing was deleted
 */
export async function deleteChat(
  deps: Pick<ApiDeps, "database" | "sourceStorages" | "log">,
  user: string,
  record: ChatRecord,
): Promise<void> {
  await deps.database.deleteChat(user, record.id);
  const storage = deps.sourceStorages.find((s) => s.displayName === record.metadata.source_storage);
  if (storage) await forget(storage, user, record, deps.log);
}

/** Asks the storage to forget the chat, now and, while it fails, again later. */
async function forget(
  storage: SourceStorage,
  user: string,
  record: ChatRecord,
  log: Log,
  tries = 1,
): Promise<void> {
  try {
    await storage.delete({
      ...record.metadata.params,
      user,
      chat_id: record.id,
      chat_name: record.metadata.name,
      signal: new AbortController().signal,
    });
  } catch (error) {
    const what = `the indexes of the deleted chat ${quote(record.id)} from ${
      quote(storage.displayName)
    }`;
    if (tries >= TRIES) {
      log(logLine("error", `Gave up removing ${what}: ${(error as Error).message}`));
      return;
    }
    log(
      logLine("warn", `Cannot remove ${what} yet, tried again later: ${(error as Error).message}`),
    );
    const delay = RETRY_DELAYS_MS[Math.min(tries, RETRY_DELAYS_MS.length) - 1]!;
    // No reason to keep a stopping process: its rows then stay, used by no chat.
    Deno.unrefTimer(setTimeout(() => void forget(storage, user, record, log, tries + 1), delay));
  }
}

/**
 * Asks the chat's source storage to forget one document the chat no longer
 * has. A storage that cannot is logged, not an error: the chat no longer
 * retrieves from the document, and what the storage kept of it goes with the
 * chat.
 */
export async function forgetDocument(
  deps: Pick<ApiDeps, "database" | "sourceStorages" | "document" | "log">,
  user: string,
  record: ChatRecord,
  documentId: string,
): Promise<void> {
  const storage = deps.sourceStorages.find((s) => s.displayName === record.metadata.source_storage);
  if (!storage) return;
  try {
    const row = await deps.database.getDocument(user, documentId);
    await storage.forget(new (deps.document ?? LocalDocument)(row), {
      ...record.metadata.params,
      user,
      chat_id: record.id,
      chat_name: record.metadata.name,
      signal: new AbortController().signal,
    });
  } catch (error) {
    deps.log(logLine(
      "warn",
      `Cannot remove the index of the document ${quote(documentId)} from the chat ${
        quote(record.id)
      } in ${quote(storage.displayName)}: ${(error as Error).message}`,
    ));
  }
}
