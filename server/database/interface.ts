/**
 * What the REST API asks of its database, whichever engine keeps it: libSQL
 * (a file, memory or a libSQL server; `LibsqlDatabase`) or PostgreSQL
 * (`PostgresDatabase`). Both pass the same tests (tests/server/database/).
 * @module
 */
import type { AttemptLimits, LoginAttempt, Reservation } from "../auth/login_attempts.ts";
import type { AccountRecord, SessionRecord } from "./accounts.ts";
import type { ApiKeyOwner, ApiKeyRecord, StoredApiKey } from "./api_keys.ts";
import type { InsertChatOptions } from "./chats.ts";
import type { AddDocumentOptions, AddedDocument, RecordedSize } from "./documents.ts";
import type {
  AnswerEnd,
  AnswerProgress,
  ChatRecord,
  ChatSummary,
  DocumentListing,
  DocumentRecord,
  Feedback,
  MessageRecord,
  NewMessage,
  RatedAnswer,
  StoredDocument,
} from "./records.ts";

/**
 * A user's documents and chats, the accounts, sessions and API keys. Users
 * are created on first use; every method sees only the given user's data and
 * answers 404 for another user's, as for a missing one. Every write is all or
 * nothing: a failure leaves nothing of it. Open one with `openDatabase`.
 */
export interface Database {
  /** The database's URL, with any password or token hidden. */
  readonly name: string;

  /**
   * Stores a document the user registered, unless as many of the user's
   * registrations wait for their file as `options` allow (then `added` is
   * false, and nothing changed but the removal of the expired ones). 409 if
   * its id is taken.
   */
  addDocument(
    user: string,
    document: StoredDocument,
    options?: AddDocumentOptions,
  ): Promise<AddedDocument>;
  /** The user's document; 404 `No document "<id>"` when it is missing or another user's. */
  getDocument(user: string, id: string): Promise<StoredDocument>;
  /** The user's documents in the order of `ids`; 404 naming every id that is missing or another user's. */
  getDocuments(user: string, ids: string[]): Promise<StoredDocument[]>;
  /**
   * The user's uploaded documents, newest first, with their sizes, their pages
   * once read, and the chats that use them.
   */
  listDocuments(user: string): Promise<DocumentListing[]>;
  /** Records how many pages each of the user's documents has, by id; other ids are ignored. */
  recordPages(user: string, pages: Record<string, number>): Promise<void>;
  /** The bytes of the files the user uploaded, as {@linkcode Database.recordSize} recorded them. */
  storageUsed(user: string): Promise<number>;
  /**
   * Records the size of the file uploaded for the user's document, unless the
   * user's files would then take more than `maxTotal` bytes; checked and
   * recorded in one write. 404 for a missing or another user's document.
   */
  recordSize(user: string, id: string, size: number, maxTotal: number): Promise<RecordedSize>;
  /**
   * Removes the user's document that no chat uses, and its file (its
   * metadata's `path`). 404 for a missing or another user's document; 409
   * naming the chats that use it.
   */
  deleteDocument(user: string, id: string): Promise<StoredDocument>;

  /**
   * Stores a new chat of the user. 429 when the user has `maxChats` chats
   * already; 404 naming every document that is missing or another user's; 409
   * if the chat's id is taken.
   */
  addChat(user: string, chat: ChatRecord, options?: InsertChatOptions): Promise<void>;
  /** The user's chat with all its messages; 404 `No chat "<id>"` when it is missing or another user's. */
  getChat(user: string, id: string): Promise<ChatRecord>;
  /** The user's chats, oldest first, each with all its messages in order. */
  listChats(user: string): Promise<ChatRecord[]>;
  /** {@linkcode Database.listChats} as its JSON text, written by the database itself. */
  listChatsJson(user: string): Promise<string>;
  /** The user's chats, oldest first, without their messages: how many, and the last one's time. */
  listChatSummaries(user: string): Promise<ChatSummary[]>;
  /**
   * Marks the chat prepared and appends its welcome message, together. 404 for
   * a missing or another user's chat; 400 if it is prepared already.
   */
  setPrepared(user: string, chatId: string, welcome: MessageRecord): Promise<void>;
  /**
   * Appends messages, with their sources, to the user's chat; an answer is
   * linked to the question it names, else to the chat's last question. A
   * source whose id its document already has is reused. 404 for a missing or
   * another user's chat, and for a source whose document is missing or
   * another user's.
   */
  addMessages(user: string, chatId: string, messages: NewMessage[]): Promise<void>;
  /** Renames the user's chat. 404 for a missing or another user's chat. */
  renameChat(user: string, chatId: string, name: string): Promise<void>;
  /**
   * Names the user's chat `title` if it has no name yet (`""`); a chat with a
   * name keeps it. Whether it was named. 404 for a missing or another user's chat.
   */
  titleChat(user: string, chatId: string, title: string): Promise<boolean>;
  /**
   * Adds documents after the chat's own. 404 for a missing or another user's
   * chat, naming the documents that are missing or another user's; 409 for a
   * document the chat has already.
   */
  addChatDocuments(user: string, chatId: string, documents: DocumentRecord[]): Promise<void>;
  /**
   * Takes a document out of the user's chat (the document stays). 404 for a
   * missing or another user's chat or document, and for a document the chat
   * does not have.
   */
  removeChatDocument(user: string, chatId: string, documentId: string): Promise<void>;
  /**
   * The last question of the chat's conversation, to answer again: its
   * answers so far stay, as versions. 404 for a missing or another user's
   * chat; 400 for a chat that has no question yet.
   */
  lastQuestion(user: string, chatId: string): Promise<{ id: string; content: string }>;
  /**
   * Asks a question in place of one of the chat's conversation: the question
   * edited and the messages after it leave the conversation, kept as the
   * branch of the edited question, and `question`, appended, is a version of
   * it. 404 for a missing or another user's chat, or a message it does not
   * have; 400 for a message that is not a question of the conversation.
   */
  editQuestion(
    user: string,
    chatId: string,
    questionId: string,
    question: NewMessage,
  ): Promise<void>;
  /**
   * One message of the user's chat as the chat lists it, with its versions,
   * whether or not it is in the conversation. 404 for a missing or another
   * user's chat, or a message it does not have.
   */
  getMessage(user: string, chatId: string, messageId: string): Promise<MessageRecord>;
  /**
   * The messages from a question of the user's chat on, in order: for a
   * question an edit replaced, those the edit took out of the conversation;
   * else the conversation from it on. 404 as {@linkcode Database.getMessage};
   * 400 for a message that is not a question.
   */
  getBranch(user: string, chatId: string, questionId: string): Promise<MessageRecord[]>;
  /**
   * Sets (or, with `null`, clears) the user's feedback on an answer of the
   * chat. 404 as {@linkcode Database.getMessage}; 400 for a message that is
   * not an answer.
   */
  setFeedback(
    user: string,
    chatId: string,
    messageId: string,
    feedback: Feedback | null,
  ): Promise<void>;
  /**
   * The answers rated `rating`, of one user or of all, oldest first, each with
   * its question and the sources it cites (all its sources when it cites none).
   */
  ratedAnswers(rating: Feedback["rating"], user?: string): Promise<RatedAnswer[]>;

  /**
   * Saves the text so far of answers being written (see `NewMessage.runsUntil`),
   * and extends their runs' leases to `until` (milliseconds since the epoch);
   * the runs of any process whose lease ended by `now` end as failed, their
   * text as far as it was saved. The ids among them that are to stop (see
   * {@linkcode Database.stopsAsked}).
   */
  saveAnswers(
    progress: AnswerProgress[],
    options: { until: number; now: number },
  ): Promise<string[]>;
  /**
   * The ids among those of answers being written that are to stop: their
   * stop was asked, or their run is gone (their chat deleted, their lease over).
   */
  stopsAsked(ids: string[]): Promise<string[]>;
  /** Ends an answer that was being written; nothing when it is gone (its chat deleted). */
  finishAnswer(end: AnswerEnd): Promise<void>;
  /**
   * Asks the answers being written in the user's chat to stop, whichever
   * process writes them; their ids. 404 for a missing or another user's chat.
   */
  stopAnswers(user: string, chatId: string): Promise<string[]>;
  /**
   * Removes the user's chat, its messages and their sources where no other
   * message links to them; the documents stay. 404 for a missing or another
   * user's chat.
   */
  deleteChat(user: string, id: string): Promise<void>;

  /** Makes the account of a user; `now` in seconds since the epoch. 409 when it has one already. */
  addAccount(user: string, hash: string, now: number): Promise<void>;
  /** Sets the hash of a user's password and ends its sessions. 404 when it has no account. */
  setPassword(user: string, hash: string, now: number): Promise<void>;
  /** Removes a user's account, ends its sessions and revokes its API keys. 404 when it has none. */
  removeAccount(user: string): Promise<void>;
  /**
   * Renames a user, with all its data, unless the new name is another
   * user's; whether it was renamed. Its sessions end, their tokens naming
   * the old name.
   */
  renameUser(from: string, to: string): Promise<boolean>;
  /** Every account, by user name, with its sessions open at `now` (seconds). */
  listAccounts(now: number): Promise<AccountRecord[]>;
  /** The hash of a user's password, or `undefined` when the user has no account. */
  passwordHash(user: string): Promise<string | undefined>;
  /**
   * Counts a login before its password is checked, unless the window holds as
   * many as a limit allows already: checked and counted in one step, so that
   * logins made at once, on any replica, never pass a limit together. The
   * logins until `limits.since` go.
   */
  reserveLoginAttempt(attempt: LoginAttempt, limits: AttemptLimits): Promise<Reservation>;
  /** The times (ms) of the logins after `since` of a user, or from an address, or both, oldest first. */
  loginAttemptTimes(of: { user?: string; address?: string }, since: number): Promise<number[]>;
  /** Forgets the logins of a user, from one address or from all; how many there were. */
  clearLoginAttempts(user: string, address?: string): Promise<number>;
  /** Stores a new session; the sessions that expired by its start go. */
  startSession(session: SessionRecord): Promise<void>;
  /** The user of a session that is open at `now` (seconds), or `undefined`. */
  sessionUser(id: string, now: number): Promise<string | undefined>;
  /** Ends a session at once; whether it was open. */
  endSession(id: string): Promise<boolean>;

  /** Stores a new API key of the user; 429 when the user has `maxKeys` keys already. */
  addApiKey(user: string, key: StoredApiKey, maxKeys: number): Promise<void>;
  /** The user's API keys, oldest first, without the keys themselves. */
  listApiKeys(user: string): Promise<ApiKeyRecord[]>;
  /** Revokes the user's API key at once; 404 `No API key "<id>"` for a missing or another user's. */
  removeApiKey(user: string, id: string): Promise<void>;
  /** Whose the API key with this SHA-256 (hex) is, or `undefined` for none. */
  apiKeyOwner(hash: string): Promise<ApiKeyOwner | undefined>;
  /** Records that the API key was used at `now` (seconds). */
  touchApiKey(id: string, now: number): Promise<void>;

  /**
   * Keeps the file uploaded for the user's document, read from `path`, where
   * every replica reads it. Only a database that keeps files (PostgreSQL) has
   * it; elsewhere the file stays in the local root. 409 when the document has
   * its file already.
   */
  keepFile?(user: string, id: string, path: string): Promise<void>;
  /** Whether the document has its file kept by {@linkcode Database.keepFile}. */
  hasFile?(id: string): Promise<boolean>;
  /**
   * The documents with their `path` at this process's copy of their kept
   * file, written from the database first where it lacks one; a document
   * whose file was never kept is returned as it is.
   */
  localFiles?(documents: StoredDocument[]): Promise<StoredDocument[]>;

  /**
   * The secret kept under `name`: `made` if none was kept yet, else the one
   * kept first, by whichever process. Only a database that replicas share
   * (PostgreSQL) has it; elsewhere secrets stay in the local root.
   */
  keepSecret?(name: string, made: string): Promise<string>;

  /**
   * Reads from the database once, so that `/health` says whether it answers:
   * 503 with a sentence naming it when it does not (the server down, the
   * database closed).
   */
  check(): Promise<void>;

  /** Waits for the writes under way, then closes the database. Later calls fail with 503. */
  close(): Promise<void>;
}
