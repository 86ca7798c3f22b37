/**
 * The persistence of the REST API on libSQL: a file, an in-memory database or
 * a libSQL server, with users' documents, chats, messages and sources.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openDatabase } from "./mod.ts";
 * const db = await openDatabase("sqlite://", { localRoot: "." });
 * await db.addDocument("ada", { id: "d1", name: "notes.md", metadata: {} });
 * await db.addChat("ada", {
 *   id: "c1",
 *   metadata: {
 *     name: "Notes",
 *     source_storage: "Svc/DemoSourceStorage",
 *     assistant: "Svc/DemoAssistant",
 *     params: {},
 *     documents: [{ id: "d1", name: "notes.md" }],
 *   },
 *   messages: [],
 *   prepared: false,
 * });
 * assert((await db.getChat("ada", "c1")).metadata.documents[0]?.id === "d1");
 * await db.close();
 * ```
 * @module
 */
export type { AccountRecord, SessionRecord } from "./accounts.ts";
export type { ApiKeyOwner, ApiKeyRecord, StoredApiKey } from "./api_keys.ts";
export type { InsertChatOptions } from "./chats.ts";
export { openDatabase } from "./connect.ts";
export type { OpenDatabaseOptions } from "./connect.ts";
export { CACHED_LIST_LENGTH, LibsqlDatabase } from "./database.ts";
export type { DatabaseOptions } from "./database.ts";
export type { Database } from "./interface.ts";
export type { RecordedSize } from "./documents.ts";
export { MIGRATIONS } from "./migrations.ts";
export type { Migration } from "./migrations.ts";
export { parseDatabaseUrl, shareApiDatabase } from "./url.ts";
export type { DatabaseLocation, ParseDatabaseUrlOptions } from "./url.ts";
export type {
  AnswerEnd,
  AnswerProgress,
  ChatMetadata,
  ChatRecord,
  ChatSummary,
  DocumentListing,
  DocumentRecord,
  Feedback,
  MessageRecord,
  MessageRole,
  NewMessage,
  RatedAnswer,
  SourceRecord,
  StoredDocument,
} from "./records.ts";
