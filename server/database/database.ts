/**
 * The persistence of the REST API on libSQL: users' documents, chats and
 * messages in a file, in memory or on a libSQL server.
 * @module
 */
import type { Client, InStatement, ResultSet, Transaction } from "@libsql/client";
import { quote, SvcError } from "../../components/core/errors.ts";
import { reclaimSpace } from "../../components/sqlite_space.ts";
import {
  askStop,
  BRANCH,
  editSteps,
  findMessage,
  finishSteps,
  lastQuestion,
  messagesJsonQuery,
  noBranch,
  noMessage,
  ONE_MESSAGE,
  progressSteps,
  ratedAnswersQuery,
  stopsQuery,
  toRatedAnswers,
  writeFeedback,
} from "./answers.ts";
import {
  assembleSummaries,
  chatsJsonQuery,
  findChat,
  insertChat,
  type InsertChatOptions,
  noChat,
  removeChat,
  summaryQueries,
} from "./chats.ts";
import {
  type AddDocumentOptions,
  type AddedDocument,
  documentListQuery,
  documentSeqs,
  documentsInOrder,
  insertDocument,
  pagesSteps,
  type RecordedSize,
  recordSize,
  removeDocument,
  selectDocuments,
  storageQuery,
  toDocumentList,
} from "./documents.ts";
import { appendSteps, sourceDocumentIds } from "./messages.ts";
import {
  deleteChatDocument,
  insertChatDocuments,
  titleChat,
  updateChatName,
} from "./chat_changes.ts";
import {
  type AccountRecord,
  accountsQuery,
  deleteAccount,
  deleteSession,
  insertAccount,
  insertSession,
  passwordHashQuery,
  renameUser,
  sessionQuery,
  type SessionRecord,
  toAccounts,
  updatePassword,
} from "./accounts.ts";
import {
  type ApiKeyOwner,
  apiKeyOwnerQuery,
  type ApiKeyRecord,
  apiKeysQuery,
  deleteApiKey,
  insertApiKey,
  type StoredApiKey,
  toApiKeyOwner,
  toApiKeys,
  touchApiKey,
} from "./api_keys.ts";
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
import { commitTogether, type PendingWrite } from "./group_commit.ts";
import { databaseError, runSteps } from "./steps.ts";
import type { Database } from "./interface.ts";
import type { AttemptLimits, LoginAttempt, Reservation } from "../auth/login_attempts.ts";
import { attemptTimesQuery, clearAttempts, reserveAttempt } from "./login_attempts.ts";
import type { DatabaseThread } from "./thread.ts";
import { type ChangeCount, ReadCache } from "./change_count.ts";

/** How {@linkcode LibsqlDatabase} was opened; see `openDatabase`. */
export interface DatabaseOptions {
  /** The URL, with any token hidden, for messages. */
  name: string;
  /**
   * Whether the client has one connection (an in-memory database): then reads
   * wait for writes, since a read during an open transaction would be refused.
   * @default {false}
   */
  singleConnection?: boolean;
  /**
   * Whether deletions give their space back to the disk (a file; see
   * `reclaimSpace`).
   * @default {false}
   */
  reclaimSpace?: boolean;
  /**
   * Counts every write this database commits, for the threads that read it
   * (see `ChangeCount`).
   */
  changes?: ChangeCount;
  /**
   * Whether sessions and chat lists are answered again from memory while
   * `changes` has not moved: only where it counts every change to the
   * database (on the main thread of a database thread, or in memory).
   * @default {false}
   */
  cacheReads?: boolean;
}

/** A session that is open, and until when (seconds since the epoch). */
export interface OpenSession {
  user: string;
  expires: number;
}

/** How many users' chat lists, and how many sessions, are kept in memory. */
const CACHED_LISTS = 16;
/**
 * The longest chat list kept, in characters: 16 of them take at most 32 MiB as strings, and a
 * longer one is read again each time, as before.
 */
export const CACHED_LIST_LENGTH = 1024 * 1024;
const CACHED_SESSIONS = 1024;

/**
 * A user's documents and chats. Users are created on first use; every method
 * sees only the given user's data and answers 404 for another user's, as for
 * a missing one. Every write is all or nothing: a failure leaves nothing of it.
 * Open one with `openDatabase`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openDatabase } from "./mod.ts";
 * const db = await openDatabase("sqlite://", { localRoot: "." });
 * await db.addDocument("ada", { id: "d1", name: "notes.md", metadata: {} });
 * assert((await db.getDocument("ada", "d1")).name === "notes.md");
 * await db.close();
 * ```
 */
export class LibsqlDatabase implements Database {
  readonly #client: Client | undefined;
  // Set when SQLite runs on a worker thread: every call goes there.
  readonly #thread: DatabaseThread | undefined;
  readonly #name: string;
  readonly #singleConnection: boolean;
  readonly #reclaimSpace: boolean;
  // Writes run one at a time: SQLite takes one writer anyway, and a
  // single-connection client refuses a call while a transaction holds it.
  #queue: Promise<unknown> = Promise.resolve();
  #pending: PendingWrite[] = [];
  #closed = false;
  readonly #changes: ChangeCount | undefined;
  readonly #lists: ReadCache<string> | undefined;
  readonly #sessions: ReadCache<OpenSession | undefined> | undefined;

  /**
   * Wraps an open, migrated client, or the thread of one; use `openDatabase`
   * rather than this.
   */
  constructor(client: Client | DatabaseThread, options: DatabaseOptions) {
    const threaded = "call" in client;
    this.#client = threaded ? undefined : client;
    this.#thread = threaded ? client : undefined;
    this.#name = options.name;
    this.#singleConnection = options.singleConnection ?? false;
    this.#reclaimSpace = options.reclaimSpace ?? false;
    this.#changes = options.changes;
    if (options.changes && options.cacheReads) {
      this.#lists = new ReadCache(options.changes, CACHED_LISTS);
      this.#sessions = new ReadCache(options.changes, CACHED_SESSIONS);
    }
  }

  /** The database's URL, with any token hidden. */
  get name(): string {
    return this.#name;
  }

  /**
   * Stores a document the user registered, unless as many of the user's
   * registrations wait for their file as `options` allow; those that expired
   * go first. 409 if its id is taken.
   */
  addDocument(
    user: string,
    document: StoredDocument,
    options: AddDocumentOptions = {},
  ): Promise<AddedDocument> {
    if (this.#thread) return this.#forward("addDocument", user, document, options);
    return this.#write(async (tx) =>
      await insertDocument(tx, await userSeq(tx, user), document, options)
    );
  }

  /** The user's document; 404 `No document "<id>"` when it is missing or another user's. */
  async getDocument(user: string, id: string): Promise<StoredDocument> {
    return (await this.getDocuments(user, [id]))[0]!;
  }

  /** The user's documents in the order of `ids`; 404 naming every id that is missing or another user's. */
  async getDocuments(user: string, ids: string[]): Promise<StoredDocument[]> {
    if (this.#thread) return this.#forward("getDocuments", user, ids);
    if (ids.length === 0) return [];
    const [result] = await this.#read([selectDocuments(user, ids)]);
    return documentsInOrder(result!, ids);
  }

  /** The user's uploaded documents, newest first, with their sizes, pages and chats. */
  async listDocuments(user: string): Promise<DocumentListing[]> {
    if (this.#thread) return this.#forward("listDocuments", user);
    return toDocumentList((await this.#read([documentListQuery(user)]))[0]!);
  }

  /** Records how many pages each of the user's documents has, by id. */
  recordPages(user: string, pages: Record<string, number>): Promise<void> {
    if (this.#thread) return this.#forward("recordPages", user, pages);
    if (Object.keys(pages).length === 0) return Promise.resolve();
    return this.#write(async (tx) => {
      await runSteps(tx, pagesSteps(await userSeq(tx, user), pages));
    });
  }

  /**
   * The bytes of the files the user uploaded, as {@linkcode LibsqlDatabase.recordSize}
   * recorded them.
   */
  async storageUsed(user: string): Promise<number> {
    if (this.#thread) return this.#forward("storageUsed", user);
    const [result] = await this.#read([storageQuery(user)]);
    return Number(result!.rows[0]?.used ?? 0);
  }

  /**
   * Records the size of the file uploaded for the user's document, unless the
   * user's files would then take more than `maxTotal` bytes; checked and
   * recorded in one write, so that uploads ending at once cannot pass the
   * limit together. 404 for a missing or another user's document.
   */
  recordSize(user: string, id: string, size: number, maxTotal: number): Promise<RecordedSize> {
    if (this.#thread) return this.#forward("recordSize", user, id, size, maxTotal);
    return this.#write(async (tx) =>
      await recordSize(tx, await userSeq(tx, user), id, size, maxTotal)
    );
  }

  /**
   * Stores a new chat of the user: its metadata, its documents in the given
   * order, whether it is prepared, and its messages. 429 when the user has
   * `maxChats` chats already; 404 naming every document that is missing or
   * another user's; 409 if the chat's id is taken.
   */
  addChat(user: string, chat: ChatRecord, options: InsertChatOptions = {}): Promise<void> {
    if (this.#thread) return this.#forward("addChat", user, chat, options);
    return this.#write(async (tx) => {
      await insertChat(tx, await userSeq(tx, user), chat, options);
    });
  }

  /** The user's chat with all its messages; 404 `No chat "<id>"` when it is missing or another user's. */
  async getChat(user: string, id: string): Promise<ChatRecord> {
    if (this.#thread) return this.#forward("getChat", user, id);
    const [result] = await this.#read([chatsJsonQuery(user, { id })]);
    const chat = JSON.parse(String(result!.rows[0]?.chats ?? "[]"))[0];
    if (chat === undefined) throw noChat(id);
    return chat;
  }

  /** The user's chats, oldest first, each with all its messages in order. */
  async listChats(user: string): Promise<ChatRecord[]> {
    return JSON.parse(await this.listChatsJson(user));
  }

  /**
   * {@linkcode listChats} as its JSON text, written by the database itself.
   * On a database thread the list crosses to the main thread as one string,
   * not as an object per message and source to copy and then serialise there.
   */
  listChatsJson(user: string): Promise<string> {
    const read = async (): Promise<string> => {
      if (this.#thread) return await this.#forward("listChatsJson", user);
      const [result] = await this.#read([chatsJsonQuery(user)]);
      return String(result!.rows[0]?.chats ?? "[]");
    };
    const short = (json: string) => json.length <= CACHED_LIST_LENGTH;
    return this.#lists ? this.#lists.read(user, read, short) : read();
  }

  /** The user's chats, oldest first, without their messages: how many, and the last one's time. */
  async listChatSummaries(user: string): Promise<ChatSummary[]> {
    if (this.#thread) return this.#forward("listChatSummaries", user);
    return assembleSummaries(await this.#read(summaryQueries(user)));
  }

  /**
   * Marks the chat prepared and appends its welcome message, together.
   * 404 for a missing or another user's chat; 400 if it is prepared already.
   */
  setPrepared(user: string, chatId: string, welcome: MessageRecord): Promise<void> {
    if (this.#thread) return this.#forward("setPrepared", user, chatId, welcome);
    return this.#write(async (tx) => {
      const chat = await findChat(tx, user, chatId);
      if (chat.prepared) {
        throw new SvcError(`Chat ${quote(chatId)} is already prepared`, { status: 400 });
      }
      const documents = await documentSeqs(tx, chat.userSeq, sourceDocumentIds([welcome]));
      await runSteps(tx, [
        {
          sql: "UPDATE chats SET prepared = 1 WHERE seq = ?",
          args: [chat.seq],
          action: `prepare chat ${quote(chatId)}`,
        },
        ...appendSteps([welcome], { chatSeq: chat.seq, first: chat.next, documents }),
      ]);
    });
  }

  /**
   * Appends messages, with their sources, to the user's chat; an answer is
   * linked to the question it names, else to the chat's last question. A
   * source whose id its document already has is reused. 404 for a missing or
   * another user's chat, and for a source whose document is missing or
   * another user's.
   */
  addMessages(user: string, chatId: string, messages: NewMessage[]): Promise<void> {
    if (this.#thread) return this.#forward("addMessages", user, chatId, messages);
    return this.#write(async (tx) => {
      const chat = await findChat(tx, user, chatId);
      const documents = await documentSeqs(tx, chat.userSeq, sourceDocumentIds(messages));
      await runSteps(tx, appendSteps(messages, { chatSeq: chat.seq, first: chat.next, documents }));
    });
  }

  /** Renames the user's chat. 404 for a missing or another user's chat. */
  renameChat(user: string, chatId: string, name: string): Promise<void> {
    if (this.#thread) return this.#forward("renameChat", user, chatId, name);
    return this.#write(async (tx) => {
      await updateChatName(tx, await findChat(tx, user, chatId), name);
    });
  }

  /**
   * Names the user's chat `title` if it has no name yet (`""`), as its first
   * question does; a chat with a name keeps it. Whether it was named. 404 for
   * a missing or another user's chat.
   */
  titleChat(user: string, chatId: string, title: string): Promise<boolean> {
    if (this.#thread) return this.#forward("titleChat", user, chatId, title);
    return this.#write(async (tx) => await titleChat(tx, await findChat(tx, user, chatId), title));
  }

  /**
   * Adds documents after the chat's own. 404 for a missing or another user's
   * chat, naming the documents that are missing or another user's; 409 for a
   * document the chat has already.
   */
  addChatDocuments(user: string, chatId: string, documents: DocumentRecord[]): Promise<void> {
    if (this.#thread) return this.#forward("addChatDocuments", user, chatId, documents);
    return this.#write(async (tx) => {
      await insertChatDocuments(tx, await findChat(tx, user, chatId), documents);
    });
  }

  /** Takes a document out of the user's chat. 404 for a chat or document it does not have. */
  removeChatDocument(user: string, chatId: string, documentId: string): Promise<void> {
    if (this.#thread) return this.#forward("removeChatDocument", user, chatId, documentId);
    return this.#write(async (tx) => {
      await deleteChatDocument(tx, await findChat(tx, user, chatId), documentId);
    });
  }

  /**
   * The last question of the chat's conversation, to answer again. 404 for a
   * missing or another user's chat; 400 for a chat that has no question yet.
   */
  lastQuestion(user: string, chatId: string): Promise<{ id: string; content: string }> {
    if (this.#thread) return this.#forward("lastQuestion", user, chatId);
    return this.#write(async (tx) => {
      const question = await lastQuestion(tx, await findChat(tx, user, chatId));
      if (question === undefined) {
        throw new SvcError(`Chat ${quote(chatId)} has no question to answer again`, {
          status: 400,
        });
      }
      return question;
    });
  }

  /**
   * Asks `question` in place of a question of the chat's conversation, which
   * leaves it with the messages after it, kept as its branch.
   */
  editQuestion(
    user: string,
    chatId: string,
    questionId: string,
    question: NewMessage,
  ): Promise<void> {
    if (this.#thread) return this.#forward("editQuestion", user, chatId, questionId, question);
    return this.#write(async (tx) => {
      const chat = await findChat(tx, user, chatId);
      const { before, after } = editSteps(
        chat,
        await findMessage(tx, chat, questionId),
        question.id,
      );
      const documents = await documentSeqs(tx, chat.userSeq, sourceDocumentIds([question]));
      await runSteps(tx, [
        ...before,
        ...appendSteps([question], { chatSeq: chat.seq, first: chat.next, documents }),
        ...after,
      ]);
    });
  }

  /** One message of the user's chat, with its versions. */
  async getMessage(user: string, chatId: string, messageId: string): Promise<MessageRecord> {
    if (this.#thread) return this.#forward("getMessage", user, chatId, messageId);
    const messages = await this.#messages(user, chatId, ONE_MESSAGE, [messageId]);
    if (messages.length === 0) throw noMessage(chatId, messageId);
    return messages[0]!;
  }

  /** The messages from a question of the user's chat on (see `Database.getBranch`). */
  async getBranch(user: string, chatId: string, questionId: string): Promise<MessageRecord[]> {
    if (this.#thread) return this.#forward("getBranch", user, chatId, questionId);
    const question = await this.getMessage(user, chatId, questionId);
    if (question.role !== "user") throw noBranch();
    return await this.#messages(user, chatId, BRANCH, [questionId]);
  }

  /** Sets or clears the user's feedback on an answer of the chat. */
  setFeedback(
    user: string,
    chatId: string,
    messageId: string,
    feedback: Feedback | null,
  ): Promise<void> {
    if (this.#thread) return this.#forward("setFeedback", user, chatId, messageId, feedback);
    return this.#write(async (tx) => {
      const chat = await findChat(tx, user, chatId);
      const message = await findMessage(tx, chat, messageId);
      await writeFeedback(tx, chat, message, feedback && JSON.stringify(feedback));
    });
  }

  /** The answers rated `rating`, of one user or of all, oldest first. */
  async ratedAnswers(rating: Feedback["rating"], user?: string): Promise<RatedAnswer[]> {
    if (this.#thread) return this.#forward("ratedAnswers", rating, user);
    return toRatedAnswers((await this.#read([ratedAnswersQuery(rating, user)]))[0]!);
  }

  /** Saves the text so far of answers being written and extends their leases. */
  saveAnswers(
    progress: AnswerProgress[],
    options: { until: number; now: number },
  ): Promise<string[]> {
    if (this.#thread) return this.#forward("saveAnswers", progress, options);
    return this.#write(async (tx) => {
      await runSteps(tx, progressSteps(progress, options.until, options.now));
      const stops = await tx.execute(stopsQuery(progress.map((each) => each.id)));
      return stops.rows.map((row) => String(row.id));
    });
  }

  /** The ids among those of answers being written whose stop was asked. */
  async stopsAsked(ids: string[]): Promise<string[]> {
    if (this.#thread) return this.#forward("stopsAsked", ids);
    if (ids.length === 0) return [];
    return (await this.#read([stopsQuery(ids)]))[0]!.rows.map((row) => String(row.id));
  }

  /** Ends an answer that was being written. */
  finishAnswer(end: AnswerEnd): Promise<void> {
    if (this.#thread) return this.#forward("finishAnswer", end);
    return this.#write(async (tx) => await runSteps(tx, finishSteps(end)));
  }

  /** Asks the answers being written in the user's chat to stop; their ids. */
  stopAnswers(user: string, chatId: string): Promise<string[]> {
    if (this.#thread) return this.#forward("stopAnswers", user, chatId);
    return this.#write(async (tx) => await askStop(tx, await findChat(tx, user, chatId)));
  }

  /**
   * Removes the user's chat, its messages and their sources where no other
   * message links to them, and gives their space back to the disk; the
   * documents stay. 404 for a missing or another user's chat.
   */
  async deleteChat(user: string, id: string): Promise<void> {
    if (this.#thread) return await this.#forward("deleteChat", user, id);
    await this.#write(async (tx) => {
      await removeChat(tx, await findChat(tx, user, id));
    });
    await this.#reclaim();
  }

  /**
   * Removes the user's document that no chat uses, and its file (its
   * metadata's `path`), then gives the space back to the disk. The file goes
   * inside the write, before it commits: a file that cannot be removed leaves
   * the document as it was, and a commit that fails after it leaves a
   * document without a file, which deleting again removes. Its bytes no
   * longer count towards the user's storage. 404 for a missing or another
   * user's document; 409 naming the chats that use it (its chat documents,
   * or sources of their messages).
   */
  async deleteDocument(user: string, id: string): Promise<StoredDocument> {
    if (this.#thread) return await this.#forward("deleteDocument", user, id);
    const removed = await this.#write((tx) => removeDocument(tx, user, id));
    await this.#reclaim();
    return removed;
  }

  /**
   * Makes the account of a user with the hash of its password; `now` in
   * seconds since the epoch. 409 when the user has an account already.
   */
  addAccount(user: string, hash: string, now: number): Promise<void> {
    if (this.#thread) return this.#forward("addAccount", user, hash, now);
    return this.#write(async (tx) => {
      await insertAccount(tx, await userSeq(tx, user), user, hash, now);
    });
  }

  /** Sets the hash of a user's password and ends its sessions. 404 when it has no account. */
  setPassword(user: string, hash: string, now: number): Promise<void> {
    if (this.#thread) return this.#forward("setPassword", user, hash, now);
    return this.#write((tx) => updatePassword(tx, user, hash, now));
  }

  /**
   * Removes a user's account, ends its sessions and revokes its API keys; its
   * data stays. 404 when it has none.
   */
  removeAccount(user: string): Promise<void> {
    if (this.#thread) return this.#forward("removeAccount", user);
    return this.#write((tx) => deleteAccount(tx, user));
  }

  /** Renames a user, with all its data, unless the new name is another user's; whether it was. */
  renameUser(from: string, to: string): Promise<boolean> {
    if (this.#thread) return this.#forward("renameUser", from, to);
    return this.#write((tx) => renameUser(tx, from, to));
  }

  /** Every account, by user name, with its sessions open at `now` (seconds). */
  async listAccounts(now: number): Promise<AccountRecord[]> {
    if (this.#thread) return this.#forward("listAccounts", now);
    return toAccounts((await this.#read([accountsQuery(now)]))[0]!);
  }

  /** The hash of a user's password, or `undefined` when the user has no account. */
  async passwordHash(user: string): Promise<string | undefined> {
    if (this.#thread) return this.#forward("passwordHash", user);
    const row = (await this.#read([passwordHashQuery(user)]))[0]!.rows[0];
    return row === undefined ? undefined : String(row.password_hash);
  }

  /**
   * Counts a login before its password is checked, unless the window holds as
   * many as a limit allows already; the logins until `limits.since` go.
   */
  reserveLoginAttempt(attempt: LoginAttempt, limits: AttemptLimits): Promise<Reservation> {
    if (this.#thread) return this.#forward("reserveLoginAttempt", attempt, limits);
    return this.#write((tx) => reserveAttempt(tx, attempt, limits));
  }

  /** The times (ms) of the logins after `since` of a user, or from an address, or both, oldest first. */
  async loginAttemptTimes(
    of: { user?: string; address?: string },
    since: number,
  ): Promise<number[]> {
    if (this.#thread) return this.#forward("loginAttemptTimes", of, since);
    const [found] = await this.#read([attemptTimesQuery(of, since)]);
    return found!.rows.map((row) => Number(row.at));
  }

  /** Forgets the logins of a user, from one address or from all; how many there were. */
  clearLoginAttempts(user: string, address?: string): Promise<number> {
    if (this.#thread) return this.#forward("clearLoginAttempts", user, address);
    return this.#write((tx) => clearAttempts(tx, user, address));
  }

  /** Stores a new session; the sessions that expired by its start go. */
  startSession(session: SessionRecord): Promise<void> {
    if (this.#thread) return this.#forward("startSession", session);
    return this.#write(async (tx) => {
      await insertSession(tx, await userSeq(tx, session.user), session);
    });
  }

  /** The user of a session that is open at `now` (seconds), or `undefined`. */
  async sessionUser(id: string, now: number): Promise<string | undefined> {
    const open = (session: OpenSession | undefined) =>
      session !== undefined && session.expires > now;
    const read = () => this.openSession(id, now);
    return (await (this.#sessions ? this.#sessions.read(id, read, open) : read()))?.user;
  }

  /** The user of a session that is open at `now` (seconds) and until when, or `undefined`. */
  async openSession(id: string, now: number): Promise<OpenSession | undefined> {
    if (this.#thread) return this.#forward("openSession", id, now);
    const row = (await this.#read([sessionQuery(id, now)]))[0]!.rows[0];
    return row === undefined ? undefined : { user: String(row.name), expires: Number(row.expires) };
  }

  /** Ends a session at once; whether it was open. */
  endSession(id: string): Promise<boolean> {
    if (this.#thread) return this.#forward("endSession", id);
    return this.#write((tx) => deleteSession(tx, id));
  }

  /** Stores a new API key of the user; 429 when the user has `maxKeys` keys already. */
  addApiKey(user: string, key: StoredApiKey, maxKeys: number): Promise<void> {
    if (this.#thread) return this.#forward("addApiKey", user, key, maxKeys);
    return this.#write(async (tx) => {
      await insertApiKey(tx, await userSeq(tx, user), key, maxKeys);
    });
  }

  /** The user's API keys, oldest first, without the keys themselves. */
  async listApiKeys(user: string): Promise<ApiKeyRecord[]> {
    if (this.#thread) return this.#forward("listApiKeys", user);
    return toApiKeys((await this.#read([apiKeysQuery(user)]))[0]!);
  }

  /** Revokes the user's API key at once; 404 `No API key "<id>"` for a missing or another user's. */
  removeApiKey(user: string, id: string): Promise<void> {
    if (this.#thread) return this.#forward("removeApiKey", user, id);
    return this.#write((tx) => deleteApiKey(tx, user, id));
  }

  /** Whose the API key with this SHA-256 (hex) is, or `undefined` for none. */
  async apiKeyOwner(hash: string): Promise<ApiKeyOwner | undefined> {
    if (this.#thread) return this.#forward("apiKeyOwner", hash);
    return toApiKeyOwner((await this.#read([apiKeyOwnerQuery(hash)]))[0]!);
  }

  /** Records that the API key was used at `now` (seconds). */
  touchApiKey(id: string, now: number): Promise<void> {
    if (this.#thread) return this.#forward("touchApiKey", id, now);
    return this.#write((tx) => touchApiKey(tx, id, now));
  }

  /** Reads from the database once: 503 naming it when it does not answer. */
  async check(): Promise<void> {
    if (this.#thread) return await this.#forward("check");
    await this.#read([{ sql: "SELECT 1", args: [] }]);
  }

  /** Waits for the writes under way, then closes the database. Later calls fail with 503. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#thread) {
      // A worker that failed has nothing left to close.
      await this.#thread.call("close").catch(() => {});
      this.#thread.terminate();
      return;
    }
    await this.#queue;
    this.#client!.close();
  }

  /** The messages of the user's chat that `where` selects; 404 for a missing chat. */
  async #messages(
    user: string,
    chatId: string,
    where: string,
    args: string[],
  ): Promise<MessageRecord[]> {
    const [result] = await this.#read([messagesJsonQuery(user, chatId, where, args, Date.now())]);
    const row = result!.rows[0];
    if (row?.chat === null || row?.chat === undefined) throw noChat(chatId);
    return JSON.parse(String(row.messages));
  }

  /** Gives the space of deleted rows back, after the writes before it; never fails. */
  async #reclaim(): Promise<void> {
    if (!this.#reclaimSpace) return;
    await this.#serial(() => reclaimSpace(this.#client!)).catch(() => {});
  }

  /** Calls the method of the database on the worker thread. */
  #forward<T>(method: string, ...args: unknown[]): Promise<T> {
    if (this.#closed) return Promise.reject(this.#closedError());
    return this.#thread!.call(method, args) as Promise<T>;
  }

  /**
   * Runs `work` in a write transaction, after the writes before it; it is
   * confirmed once committed. The writes that wait meanwhile are committed
   * together (see `commitTogether`), each still all or nothing.
   */
  #write<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(this.#closedError());
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    // Counted before its caller hears of it, so that a read it makes next is not answered from
    // before the write.
    this.#pending.push({
      work,
      resolve: (value) => {
        this.#changes?.bump();
        resolve(value as T);
      },
      reject: (error) => {
        this.#changes?.bump();
        reject(error);
      },
    });
    // The first write to wait schedules the commit that takes all that wait by then.
    if (this.#pending.length === 1) {
      const refusal = (error: unknown) =>
        databaseError(`Cannot write to the database ${quote(this.#name)}`, error);
      void this.#serial(() => commitTogether(this.#client!, this.#pending.splice(0), refusal));
    }
    return promise;
  }

  /** Runs the queries in one read transaction, so that they see one state of the database. */
  #read(statements: InStatement[]): Promise<ResultSet[]> {
    const read = async () => {
      try {
        return await this.#client!.batch(statements, "read");
      } catch (error) {
        throw databaseError(`Cannot read from the database ${quote(this.#name)}`, error);
      }
    };
    if (this.#closed) return Promise.reject(this.#closedError());
    return this.#singleConnection ? this.#serial(read) : read();
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(this.#closedError());
    const result = this.#queue.then(work);
    this.#queue = result.catch(() => {});
    return result;
  }

  #closedError(): SvcError {
    return new SvcError(`The database ${quote(this.#name)} is closed`, { status: 503 });
  }
}

/** The key of the user named `user`, who is created on first use. */
async function userSeq(tx: Transaction, user: string): Promise<number> {
  const [, selected] = await tx.batch([
    { sql: "INSERT INTO users (name) VALUES (?) ON CONFLICT (name) DO NOTHING", args: [user] },
    { sql: "SELECT seq FROM users WHERE name = ?", args: [user] },
  ]);
  return Number(selected!.rows[0]!.seq);
}
