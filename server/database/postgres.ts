/**
 * The persistence of the REST API on PostgreSQL, which any number of svc
 * replicas share: the same tables and answers as on libSQL, and the uploaded
 * files as well, in bounded chunks, so that a file uploaded to one replica is
 * read on another.
 * @module
 */
import type * as Postgres from "npm:postgres@3.4.9";
import { basename, join } from "node:path";
import { quote, SvcError } from "../../components/core/errors.ts";
import type { AccountRecord, SessionRecord } from "./accounts.ts";
import type { ApiKeyOwner, ApiKeyRecord, StoredApiKey } from "./api_keys.ts";
import { checkChatLimit, type InsertChatOptions, noChat } from "./chats.ts";
import {
  type AddDocumentOptions,
  type AddedDocument,
  inUse,
  noDocuments,
  type RecordedSize,
  removeFile,
} from "./documents.ts";
import { insertDocument } from "./postgres_documents.ts";
import type { Database } from "./interface.ts";
import type { AttemptLimits, LoginAttempt, Reservation } from "../auth/login_attempts.ts";
import { attemptTimes, clearAttempts, reserveAttempt } from "./postgres_login_attempts.ts";
import { sourceDocumentIds, storedStatus } from "./messages.ts";
import { chatsJson, chatSummaries, messagesJson } from "./postgres_chats.ts";
import {
  askStop,
  findMessage,
  finishAnswer,
  listDocuments,
  ratedAnswers,
  recordPages,
  saveAnswers,
  stopsAsked,
} from "./postgres_answers.ts";
import { noBranch, noFeedback, noMessage, notEditable } from "./answers.ts";
import { notInChat } from "./chat_changes.ts";
import { inQuestionBranch } from "./message_json.ts";
import { postgresError } from "./postgres_errors.ts";
import { fetchFile, hasFile, keepFile } from "./postgres_files.ts";
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

type Tx = Postgres.TransactionSql;

/** A user's chat as a write needs it. */
interface ChatKey {
  id: string;
  seq: number;
  userSeq: number;
  prepared: boolean;
  /** The number of messages, which is the position of the next one. */
  next: number;
}

// A deadlock or a serialization failure undoes the whole transaction, which
// can then run again as it was; after this many tries it is refused.
const TRIES = 4;

/**
 * The database of the REST API on PostgreSQL; open one with `openDatabase`.
 * Every write is one transaction that first locks the row of its user, so
 * that the writes of one user (on any replica) run one at a time: limits are
 * counted and positions taken without races.
 */
export class PostgresDatabase implements Database {
  readonly #sql: Postgres.Sql;
  readonly #name: string;
  readonly #files: string;
  // The calls under way, which closing waits for.
  readonly #pending = new Set<Promise<unknown>>();
  // The last write of each user in this process: a user's writes start in the
  // order they were made, as on libSQL, rather than in the order their
  // transactions happen to take the user's lock.
  readonly #lastWrite = new Map<string, Promise<unknown>>();
  #closed = false;

  /**
   * Wraps an open, migrated client; use `openDatabase` rather than this.
   * `files` is the folder of this process's copies of the kept files.
   */
  constructor(sql: Postgres.Sql, name: string, files: string) {
    this.#sql = sql;
    this.#name = name;
    this.#files = files;
  }

  /** The database's URL, without its password. */
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
    return this.#write(user, async (tx) => {
      const userSeq = await lockUser(tx, user, true);
      return await insertDocument(tx, userSeq, document, options);
    });
  }

  /** The user's document; 404 `No document "<id>"` when it is missing or another user's. */
  async getDocument(user: string, id: string): Promise<StoredDocument> {
    return (await this.getDocuments(user, [id]))[0]!;
  }

  /** The user's documents in the order of `ids`; 404 naming every id that is missing or another user's. */
  async getDocuments(user: string, ids: string[]): Promise<StoredDocument[]> {
    if (ids.length === 0) return [];
    const rows = await this.#read((sql) =>
      sql`SELECT id, name, metadata FROM documents
        WHERE user_seq = (SELECT seq FROM users WHERE name = ${user})
          AND id = ANY(${[...new Set(ids)]})`
    );
    const found = new Map(rows.map((row) => [String(row.id), toDocument(row)]));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) throw noDocuments(missing);
    return ids.map((id) => structuredClone(found.get(id)!));
  }

  /** The user's uploaded documents, newest first, with their sizes, pages and chats. */
  listDocuments(user: string): Promise<DocumentListing[]> {
    return this.#read((sql) => listDocuments(sql, user));
  }

  /** Records how many pages each of the user's documents has, by id. */
  recordPages(user: string, pages: Record<string, number>): Promise<void> {
    if (Object.keys(pages).length === 0) return Promise.resolve();
    return this.#write(user, async (tx) => {
      await recordPages(tx, await lockUser(tx, user, true), pages);
    });
  }

  /** The bytes of the files the user uploaded, as {@linkcode PostgresDatabase.recordSize} recorded them. */
  async storageUsed(user: string): Promise<number> {
    const [row] = await this.#read((sql) =>
      sql`SELECT COALESCE(SUM((metadata::json ->> 'size')::numeric), 0) AS used FROM documents
        WHERE user_seq = (SELECT seq FROM users WHERE name = ${user})`
    );
    return Number(row?.used ?? 0);
  }

  /**
   * Records the size of the file uploaded for the user's document, unless the
   * user's files would then take more than `maxTotal` bytes. 404 for a missing
   * or another user's document.
   */
  recordSize(user: string, id: string, size: number, maxTotal: number): Promise<RecordedSize> {
    return this.#write(user, async (tx) => {
      const userSeq = await lockUser(tx, user, true);
      const [counted] = await tx`SELECT COALESCE(SUM((metadata::json ->> 'size')::numeric), 0)
        AS used FROM documents WHERE user_seq = ${userSeq} AND id != ${id}`;
      const used = Number(counted?.used ?? 0);
      if (used + size > maxTotal) return { recorded: false, used };
      const [row] = await tx`SELECT metadata FROM documents
        WHERE user_seq = ${userSeq} AND id = ${id}`;
      if (row === undefined) throw noDocuments([id]);
      const metadata = JSON.parse(String(row.metadata));
      metadata.size = size;
      await step(
        `record the size of document ${quote(id)}`,
        tx`UPDATE documents SET metadata = ${JSON.stringify(metadata)}
          WHERE user_seq = ${userSeq} AND id = ${id}`,
      );
      return { recorded: true, used };
    });
  }

  /**
   * Removes the user's document that no chat uses, its chunks and its file on
   * this machine. 404 for a missing or another user's document; 409 naming
   * the chats that use it.
   */
  deleteDocument(user: string, id: string): Promise<StoredDocument> {
    return this.#write(user, async (tx) => {
      const userSeq = await lockUser(tx, user, false);
      const [row] = userSeq === undefined
        ? []
        : await tx`SELECT seq, id, name, metadata FROM documents
          WHERE id = ${id} AND user_seq = ${userSeq}`;
      if (row === undefined) throw noDocuments([id]);
      const document = toDocument(row);
      const seq = Number(row.seq);
      const users = await tx`SELECT name FROM chats WHERE seq IN (
          SELECT chat_seq FROM chat_documents WHERE document_seq = ${seq}
          UNION SELECT m.chat_seq FROM sources s
            JOIN message_sources ms ON ms.source_seq = s.seq
            JOIN messages m ON m.seq = ms.message_seq
            WHERE s.document_seq = ${seq}
        ) ORDER BY seq`;
      if (users.length > 0) throw inUse(document.name, users.map((r) => String(r.name)));
      const action = `delete document ${quote(id)}`;
      await step(action, tx`DELETE FROM sources WHERE document_seq = ${seq}`);
      await step(action, tx`DELETE FROM documents WHERE seq = ${seq}`);
      await removeFile(document);
      const copy = join(this.#files, basename(id));
      if (copy !== document.metadata.path) {
        await removeFile({ ...document, metadata: { path: copy } });
      }
      return document;
    });
  }

  /**
   * Keeps the uploaded file of the user's document, read from `path`, in the
   * database: every replica can then read it. 409 when the document has its
   * file already, 404 for a missing or another user's document.
   */
  keepFile(user: string, id: string, path: string): Promise<void> {
    // Neither in the user's queue nor under the user's lock: a large file takes a while to go
    // in, and the user's other writes need not wait for it. Its document's row is locked, so
    // that the document cannot go meanwhile.
    return this.#write(undefined, async (tx) => {
      const [row] = await tx`SELECT d.seq FROM documents d JOIN users u ON u.seq = d.user_seq
        WHERE d.id = ${id} AND u.name = ${user} FOR UPDATE OF d`;
      if (row === undefined) throw noDocuments([id]);
      await keepFile(tx, Number(row.seq), id, path);
    });
  }

  /** Whether the document has its file in the database. */
  hasFile(id: string): Promise<boolean> {
    return this.#read((sql) => hasFile(sql, id));
  }

  /**
   * The documents with their `path` at this process's copy of their kept
   * file (`<files>/<id>`), written from the database where it is missing; a
   * document whose file was never kept is returned as it is.
   */
  async localFiles(documents: StoredDocument[]): Promise<StoredDocument[]> {
    const local: StoredDocument[] = [];
    for (const document of documents) {
      const path = join(this.#files, basename(document.id));
      const kept = await this.#read((sql) => fetchFile(sql, document, path));
      local.push(kept ? { ...document, metadata: { ...document.metadata, path } } : document);
    }
    return local;
  }

  /**
   * Stores a new chat of the user. 429 when the user has `maxChats` chats
   * already; 404 naming every document that is missing or another user's; 409
   * if the chat's id is taken.
   */
  addChat(user: string, chat: ChatRecord, options: InsertChatOptions = {}): Promise<void> {
    return this.#write(user, async (tx) => {
      const userSeq = await lockUser(tx, user, true);
      const { metadata } = chat;
      const { maxChats = Infinity } = options;
      if (Number.isFinite(maxChats)) {
        const [row] = await tx`SELECT COUNT(*) AS n FROM chats WHERE user_seq = ${userSeq}`;
        checkChatLimit(Number(row?.n ?? 0), maxChats);
      }
      const documents = await documentSeqs(tx, userSeq, [
        ...metadata.documents.map((d) => d.id),
        ...sourceDocumentIds(chat.messages),
      ]);
      const what = `chat ${quote(chat.id)}`;
      const [inserted] = await step(
        `save ${what}`,
        tx`INSERT INTO chats (id, user_seq, name, source_storage, assistant, params, prepared)
          VALUES (${chat.id}, ${userSeq}, ${metadata.name}, ${metadata.source_storage},
            ${metadata.assistant}, ${JSON.stringify(metadata.params)}, ${chat.prepared ? 1 : 0})
          ON CONFLICT (id) DO NOTHING RETURNING seq`,
      );
      if (inserted === undefined) {
        throw new SvcError(`Cannot save ${what}: a chat with this id exists`, { status: 409 });
      }
      const chatSeq = Number(inserted.seq);
      await insertChatDocuments(tx, chatSeq, 0, metadata.documents, documents, what);
      await appendMessages(tx, chatSeq, 0, chat.messages, documents);
    });
  }

  /** The user's chat with all its messages; 404 `No chat "<id>"` when it is missing or another user's. */
  async getChat(user: string, id: string): Promise<ChatRecord> {
    const [chat] = JSON.parse(await this.#read((sql) => chatsJson(sql, user, id)));
    if (chat === undefined) throw noChat(id);
    return chat;
  }

  /** The user's chats, oldest first, each with all its messages in order. */
  async listChats(user: string): Promise<ChatRecord[]> {
    return JSON.parse(await this.listChatsJson(user));
  }

  /** {@linkcode PostgresDatabase.listChats} as its JSON text, written by PostgreSQL. */
  listChatsJson(user: string): Promise<string> {
    return this.#read((sql) => chatsJson(sql, user));
  }

  /** The user's chats, oldest first, without their messages. */
  listChatSummaries(user: string): Promise<ChatSummary[]> {
    return this.#read((sql) => chatSummaries(sql, user));
  }

  /**
   * Marks the chat prepared and appends its welcome message, together.
   * 404 for a missing or another user's chat; 400 if it is prepared already.
   */
  setPrepared(user: string, chatId: string, welcome: MessageRecord): Promise<void> {
    return this.#write(user, async (tx) => {
      const chat = await findChat(tx, user, chatId);
      if (chat.prepared) {
        throw new SvcError(`Chat ${quote(chatId)} is already prepared`, { status: 400 });
      }
      const documents = await documentSeqs(tx, chat.userSeq, sourceDocumentIds([welcome]));
      await step(
        `prepare chat ${quote(chatId)}`,
        tx`UPDATE chats SET prepared = 1 WHERE seq = ${chat.seq}`,
      );
      await appendMessages(tx, chat.seq, chat.next, [welcome], documents);
    });
  }

  /** Appends messages, with their sources, to the user's chat. */
  addMessages(user: string, chatId: string, messages: NewMessage[]): Promise<void> {
    return this.#write(user, async (tx) => {
      const chat = await findChat(tx, user, chatId);
      const documents = await documentSeqs(tx, chat.userSeq, sourceDocumentIds(messages));
      await appendMessages(tx, chat.seq, chat.next, messages, documents);
    });
  }

  /** Renames the user's chat. 404 for a missing or another user's chat. */
  renameChat(user: string, chatId: string, name: string): Promise<void> {
    return this.#write(user, async (tx) => {
      const chat = await findChat(tx, user, chatId);
      await step(
        `rename chat ${quote(chatId)}`,
        tx`UPDATE chats SET name = ${name} WHERE seq = ${chat.seq}`,
      );
    });
  }

  /** Names the user's chat `title` if it has no name yet; whether it was named. */
  titleChat(user: string, chatId: string, title: string): Promise<boolean> {
    return this.#write(user, async (tx) => {
      const chat = await findChat(tx, user, chatId);
      const updated = await tx`UPDATE chats SET name = ${title}
        WHERE seq = ${chat.seq} AND name = ''`;
      return updated.count > 0;
    });
  }

  /**
   * Adds documents after the chat's own. 404 naming the documents that are
   * missing or another user's; 409 for a document the chat has already.
   */
  addChatDocuments(user: string, chatId: string, documents: DocumentRecord[]): Promise<void> {
    return this.#write(user, async (tx) => {
      const chat = await findChat(tx, user, chatId);
      const seqs = await documentSeqs(tx, chat.userSeq, documents.map((d) => d.id));
      const had = new Set(
        (await tx`SELECT d.id FROM chat_documents cd JOIN documents d ON d.seq = cd.document_seq
          WHERE cd.chat_seq = ${chat.seq}`).map((row) => String(row.id)),
      );
      const seen = new Set<string>();
      for (const document of documents) {
        if (had.has(document.id) || seen.has(document.id)) {
          throw new SvcError(
            `The chat ${quote(chatId)} has the document ${quote(document.id)} already`,
            { status: 409 },
          );
        }
        seen.add(document.id);
      }
      const [row] = await tx`SELECT COALESCE(MAX(position) + 1, 0) AS next
        FROM chat_documents WHERE chat_seq = ${chat.seq}`;
      await insertChatDocuments(
        tx,
        chat.seq,
        Number(row?.next ?? 0),
        documents,
        seqs,
        `chat ${quote(chatId)}`,
        "add",
      );
    });
  }

  /** Takes a document out of the user's chat. 404 for a chat or document it does not have. */
  removeChatDocument(user: string, chatId: string, documentId: string): Promise<void> {
    return this.#write(user, async (tx) => {
      const chat = await findChat(tx, user, chatId);
      const seqs = await documentSeqs(tx, chat.userSeq, [documentId]);
      const deleted = await tx`DELETE FROM chat_documents
        WHERE chat_seq = ${chat.seq} AND document_seq = ${seqs.get(documentId)!}`;
      if (deleted.count === 0) throw notInChat(chatId, documentId);
    });
  }

  /**
   * The last question of the chat's conversation, to answer again. 404 for a
   * missing or another user's chat; 400 for a chat that has no question yet.
   */
  lastQuestion(user: string, chatId: string): Promise<{ id: string; content: string }> {
    return this.#write(user, async (tx) => {
      const chat = await findChat(tx, user, chatId);
      const [question] = await tx`SELECT id, content FROM messages
        WHERE chat_seq = ${chat.seq} AND role = 'user' AND branch_seq IS NULL
        ORDER BY position DESC LIMIT 1`;
      if (question === undefined) {
        throw new SvcError(`Chat ${quote(chatId)} has no question to answer again`, {
          status: 400,
        });
      }
      return { id: String(question.id), content: String(question.content) };
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
    return this.#write(user, async (tx) => {
      const chat = await findChat(tx, user, chatId);
      const edited = await findMessage(tx, chat, questionId);
      if (edited.role !== "user" || edited.branch !== null) throw notEditable(edited.role);
      const action = `edit a question of chat ${quote(chatId)}`;
      await step(
        action,
        tx`UPDATE messages SET branch_seq = ${edited.seq} WHERE chat_seq = ${chat.seq}
          AND role = 'user' AND branch_seq IS NULL AND position >= ${edited.position}`,
      );
      const documents = await documentSeqs(tx, chat.userSeq, sourceDocumentIds([question]));
      await appendMessages(tx, chat.seq, chat.next, [question], documents);
      await step(
        action,
        tx`UPDATE messages SET original_seq = ${edited.original} WHERE id = ${question.id}`,
      );
    });
  }

  /** One message of the user's chat, with its versions. */
  async getMessage(user: string, chatId: string, messageId: string): Promise<MessageRecord> {
    const [message] = await this.#messages(user, chatId, (sql) => sql`m.id = ${messageId}`);
    if (message === undefined) throw noMessage(chatId, messageId);
    return message;
  }

  /** The messages from a question of the user's chat on (see `Database.getBranch`). */
  async getBranch(user: string, chatId: string, questionId: string): Promise<MessageRecord[]> {
    const question = await this.getMessage(user, chatId, questionId);
    if (question.role !== "user") throw noBranch();
    return await this.#messages(
      user,
      chatId,
      (sql) =>
        sql`EXISTS (SELECT 1 FROM messages b WHERE b.id = ${questionId} AND b.role = 'user'
        AND b.chat_seq = m.chat_seq AND ${sql.unsafe(inQuestionBranch("m", "b"))})`,
    );
  }

  /** Sets or clears the user's feedback on an answer of the chat. */
  setFeedback(
    user: string,
    chatId: string,
    messageId: string,
    feedback: Feedback | null,
  ): Promise<void> {
    return this.#write(user, async (tx) => {
      const chat = await findChat(tx, user, chatId);
      const message = await findMessage(tx, chat, messageId);
      if (message.role !== "assistant") throw noFeedback();
      await step(
        `save the feedback of a message of chat ${quote(chatId)}`,
        tx`UPDATE messages SET feedback = ${feedback && JSON.stringify(feedback)}
          WHERE seq = ${message.seq}`,
      );
    });
  }

  /** The answers rated `rating`, of one user or of all, oldest first. */
  ratedAnswers(rating: Feedback["rating"], user?: string): Promise<RatedAnswer[]> {
    return this.#read((sql) => ratedAnswers(sql, rating, user));
  }

  /** Saves the text so far of answers being written and extends their leases. */
  saveAnswers(
    progress: AnswerProgress[],
    options: { until: number; now: number },
  ): Promise<string[]> {
    return this.#write(undefined, (tx) => saveAnswers(tx, progress, options));
  }

  /** The ids among those of answers being written whose stop was asked. */
  stopsAsked(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.#read((sql) => stopsAsked(sql, ids));
  }

  /** Ends an answer that was being written. */
  finishAnswer(end: AnswerEnd): Promise<void> {
    return this.#write(undefined, (tx) => finishAnswer(tx, end));
  }

  /** Asks the answers being written in the user's chat to stop; their ids. */
  stopAnswers(user: string, chatId: string): Promise<string[]> {
    return this.#write(
      user,
      async (tx) => await askStop(tx, (await findChat(tx, user, chatId)).seq),
    );
  }

  /**
   * Removes the user's chat, its messages and their sources where no other
   * message links to them; the documents stay. 404 for a missing or another
   * user's chat.
   */
  deleteChat(user: string, id: string): Promise<void> {
    return this.#write(user, async (tx) => {
      const chat = await findChat(tx, user, id);
      const action = `delete chat ${quote(id)}`;
      await removeMessages(tx, tx`chat_seq = ${chat.seq}`, action);
      await step(action, tx`DELETE FROM chat_documents WHERE chat_seq = ${chat.seq}`);
      await step(action, tx`DELETE FROM chats WHERE seq = ${chat.seq}`);
    });
  }

  /** Makes the account of a user; 409 when it has one already. */
  addAccount(user: string, hash: string, now: number): Promise<void> {
    return this.#write(user, async (tx) => {
      const userSeq = await lockUser(tx, user, true);
      const taken = await tx`SELECT 1 FROM accounts WHERE user_seq = ${userSeq}`;
      if (taken.length > 0) {
        throw new SvcError(
          `The user ${
            quote(user)
          } has an account already: change its password with "svc user passwd"`,
          { status: 409 },
        );
      }
      await step(
        `save the account of ${quote(user)}`,
        tx`INSERT INTO accounts (user_seq, password_hash, created, updated)
          VALUES (${userSeq}, ${hash}, ${now}, ${now})`,
      );
    });
  }

  /** Sets the hash of a user's password and ends its sessions. 404 when it has no account. */
  setPassword(user: string, hash: string, now: number): Promise<void> {
    return this.#write(user, async (tx) => {
      const seq = await accountSeq(tx, user);
      await step(
        `change the password of ${quote(user)}`,
        tx`UPDATE accounts SET password_hash = ${hash}, updated = ${now} WHERE user_seq = ${seq}`,
      );
      await step(
        `end the sessions of ${quote(user)}`,
        tx`DELETE FROM sessions WHERE user_seq = ${seq}`,
      );
    });
  }

  /** Removes a user's account, ends its sessions and revokes its API keys. 404 when it has none. */
  removeAccount(user: string): Promise<void> {
    return this.#write(user, async (tx) => {
      const seq = await accountSeq(tx, user);
      await step(
        `remove the account of ${quote(user)}`,
        tx`DELETE FROM accounts WHERE user_seq = ${seq}`,
      );
      await step(
        `end the sessions of ${quote(user)}`,
        tx`DELETE FROM sessions WHERE user_seq = ${seq}`,
      );
      await step(
        `revoke the API keys of ${quote(user)}`,
        tx`DELETE FROM api_keys WHERE user_seq = ${seq}`,
      );
    });
  }

  /** Renames a user, with all its data, unless the new name is another user's; whether it was. */
  renameUser(from: string, to: string): Promise<boolean> {
    return this.#write(from, async (tx) => {
      const seq = await lockUser(tx, from, false);
      if (seq === undefined) return false;
      const renamed = await tx`UPDATE users SET name = ${to} WHERE seq = ${seq}
        AND NOT EXISTS (SELECT 1 FROM users WHERE name = ${to})`;
      if (renamed.count === 0) return false;
      await tx`DELETE FROM sessions WHERE user_seq = ${seq}`;
      return true;
    });
  }

  /** Every account, by user name, with its sessions open at `now` (seconds). */
  async listAccounts(now: number): Promise<AccountRecord[]> {
    const rows = await this.#read((sql) =>
      sql`SELECT u.name, a.created, a.updated,
          (SELECT count(*) FROM sessions s WHERE s.user_seq = a.user_seq AND s.expires > ${now})
            AS open
        FROM accounts a JOIN users u ON u.seq = a.user_seq ORDER BY u.name COLLATE "C"`
    );
    return rows.map((row) => ({
      user: String(row.name),
      created: Number(row.created),
      updated: Number(row.updated),
      sessions: Number(row.open),
    }));
  }

  /** The hash of a user's password, or `undefined` when the user has no account. */
  async passwordHash(user: string): Promise<string | undefined> {
    const [row] = await this.#read((sql) =>
      sql`SELECT a.password_hash FROM accounts a JOIN users u ON u.seq = a.user_seq
        WHERE u.name = ${user}`
    );
    return row === undefined ? undefined : String(row.password_hash);
  }

  /**
   * Counts a login before its password is checked, unless the window holds as
   * many as a limit allows already; the logins until `limits.since` go.
   */
  reserveLoginAttempt(attempt: LoginAttempt, limits: AttemptLimits): Promise<Reservation> {
    return this.#write(undefined, (tx) => reserveAttempt(tx, attempt, limits));
  }

  /** The times (ms) of the logins after `since` of a user, or from an address, or both, oldest first. */
  loginAttemptTimes(of: { user?: string; address?: string }, since: number): Promise<number[]> {
    return this.#read((sql) => attemptTimes(sql, of, since));
  }

  /** Forgets the logins of a user, from one address or from all; how many there were. */
  clearLoginAttempts(user: string, address?: string): Promise<number> {
    return this.#write(undefined, (tx) => clearAttempts(tx, user, address));
  }

  /** Stores a new session; the sessions that expired by its start go. */
  startSession(session: SessionRecord): Promise<void> {
    return this.#write(session.user, async (tx) => {
      const userSeq = await lockUser(tx, session.user, true);
      await step(
        "remove the sessions that expired",
        tx`DELETE FROM sessions WHERE expires <= ${session.created}`,
      );
      await step(
        `start a session of ${quote(session.user)}`,
        tx`INSERT INTO sessions (id, user_seq, created, expires)
          VALUES (${session.id}, ${userSeq}, ${session.created}, ${session.expires})`,
      );
    });
  }

  /** The user of a session that is open at `now` (seconds), or `undefined`. */
  async sessionUser(id: string, now: number): Promise<string | undefined> {
    const [row] = await this.#read((sql) =>
      sql`SELECT u.name FROM sessions s JOIN users u ON u.seq = s.user_seq
        WHERE s.id = ${id} AND s.expires > ${now}`
    );
    return row === undefined ? undefined : String(row.name);
  }

  /** Ends a session at once; whether it was open. */
  endSession(id: string): Promise<boolean> {
    return this.#write(
      undefined,
      async (tx) => (await tx`DELETE FROM sessions WHERE id = ${id}`).count > 0,
    );
  }

  /** Stores a new API key of the user; 429 when the user has `maxKeys` keys already. */
  addApiKey(user: string, key: StoredApiKey, maxKeys: number): Promise<void> {
    return this.#write(user, async (tx) => {
      const userSeq = await lockUser(tx, user, true);
      const [counted] = await tx`SELECT count(*) AS n FROM api_keys WHERE user_seq = ${userSeq}`;
      if (Number(counted?.n ?? 0) >= maxKeys) {
        throw new SvcError(
          `You have ${maxKeys} API keys, the most a user may have: revoke one before creating another`,
          { status: 429 },
        );
      }
      await step(
        `save the API key ${quote(key.name)}`,
        tx`INSERT INTO api_keys (id, user_seq, name, prefix, hash, created, last_used)
          VALUES (${key.id}, ${userSeq}, ${key.name}, ${key.prefix}, ${key.hash}, ${key.created},
            NULL)`,
      );
    });
  }

  /** The user's API keys, oldest first, without the keys themselves. */
  async listApiKeys(user: string): Promise<ApiKeyRecord[]> {
    const rows = await this.#read((sql) =>
      sql`SELECT k.id, k.name, k.prefix, k.created, k.last_used
        FROM api_keys k JOIN users u ON u.seq = k.user_seq WHERE u.name = ${user} ORDER BY k.seq`
    );
    return rows.map((row) => ({
      id: String(row.id),
      name: String(row.name),
      prefix: String(row.prefix),
      created: Number(row.created),
      lastUsed: row.last_used === null ? null : Number(row.last_used),
    }));
  }

  /** Revokes the user's API key at once; 404 `No API key "<id>"` for a missing or another user's. */
  removeApiKey(user: string, id: string): Promise<void> {
    return this.#write(user, async (tx) => {
      const deleted = await tx`DELETE FROM api_keys
        WHERE id = ${id} AND user_seq = (SELECT seq FROM users WHERE name = ${user})`;
      if (deleted.count === 0) throw new SvcError(`No API key ${quote(id)}`, { status: 404 });
    });
  }

  /** Whose the API key with this SHA-256 (hex) is, or `undefined` for none. */
  async apiKeyOwner(hash: string): Promise<ApiKeyOwner | undefined> {
    const [row] = await this.#read((sql) =>
      sql`SELECT k.id, u.name, k.last_used FROM api_keys k JOIN users u ON u.seq = k.user_seq
        WHERE k.hash = ${hash}`
    );
    if (row === undefined) return undefined;
    return {
      id: String(row.id),
      user: String(row.name),
      lastUsed: row.last_used === null ? null : Number(row.last_used),
    };
  }

  /** Records that the API key was used at `now` (seconds). */
  touchApiKey(id: string, now: number): Promise<void> {
    return this.#write(undefined, async (tx) => {
      await step(
        "record when the API key was used",
        tx`UPDATE api_keys SET last_used = ${now} WHERE id = ${id}`,
      );
    });
  }

  /** The secret kept under `name`: `made` unless a replica kept one first. */
  keepSecret(name: string, made: string): Promise<string> {
    return this.#write(undefined, async (tx) => {
      await tx`INSERT INTO signing_secrets (name, secret) VALUES (${name}, ${made})
        ON CONFLICT (name) DO NOTHING`;
      // A statement of its own: it sees the secret another replica committed meanwhile.
      const [row] = await tx`SELECT secret FROM signing_secrets WHERE name = ${name}`;
      return String(row!.secret);
    });
  }

  /** Reads from the database once: 503 naming it when it does not answer. */
  async check(): Promise<void> {
    await this.#read((sql) => sql`SELECT 1`);
  }

  /** Waits for the queries under way, then closes the connections. Later calls fail with 503. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled(this.#pending);
    await this.#sql.end({ timeout: 10 });
  }

  /**
   * Runs `work` in a transaction, again after a deadlock or a serialization
   * failure; with `user`, after the writes of that user made before it.
   */
  #write<T>(user: string | undefined, work: (tx: Tx) => Promise<T>): Promise<T> {
    const transaction = async () => {
      for (let attempt = 1;; attempt++) {
        try {
          return await this.#sql.begin(work) as T;
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          if ((code === "40P01" || code === "40001") && attempt < TRIES) continue;
          throw postgresError(`Cannot write to the database ${quote(this.#name)}`, error);
        }
      }
    };
    if (user === undefined) return this.#track(transaction);
    return this.#track(() => {
      const before = this.#lastWrite.get(user) ?? Promise.resolve();
      const result = before.then(transaction);
      const settled = result.catch(() => {});
      this.#lastWrite.set(user, settled);
      void settled.then(() => {
        if (this.#lastWrite.get(user) === settled) this.#lastWrite.delete(user);
      });
      return result;
    });
  }

  /** The messages of the user's chat that `where` selects; 404 for a missing chat. */
  async #messages(
    user: string,
    chatId: string,
    where: (sql: Postgres.Sql) => Postgres.PendingQuery<Postgres.Row[]>,
  ): Promise<MessageRecord[]> {
    const json = await this.#read((sql) => messagesJson(sql, user, chatId, where(sql)));
    if (json === undefined) throw noChat(chatId);
    return JSON.parse(json);
  }

  #read<T>(query: (sql: Postgres.Sql) => Promise<T>): Promise<T> {
    return this.#track(async () => {
      try {
        return await query(this.#sql);
      } catch (error) {
        throw postgresError(`Cannot read from the database ${quote(this.#name)}`, error);
      }
    });
  }

  #track<T>(call: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(this.#closedError());
    const result = call();
    this.#pending.add(result);
    result.then(() => this.#pending.delete(result), () => this.#pending.delete(result));
    return result;
  }

  #closedError(): SvcError {
    return new SvcError(`The database ${quote(this.#name)} is closed`, { status: 503 });
  }
}

/**
 * The key of the user named `user`, with its row locked until the
 * transaction ends; with `create`, a user met for the first time is made,
 * else it is `undefined`.
 */
async function lockUser(tx: Tx, user: string, create: true): Promise<number>;
async function lockUser(tx: Tx, user: string, create: boolean): Promise<number | undefined>;
async function lockUser(tx: Tx, user: string, create: boolean): Promise<number | undefined> {
  const [row] = await tx`SELECT seq FROM users WHERE name = ${user} FOR UPDATE`;
  if (row !== undefined) return Number(row.seq);
  if (!create) return undefined;
  const [made] = await tx`INSERT INTO users (name) VALUES (${user})
    ON CONFLICT (name) DO NOTHING RETURNING seq`;
  // Another transaction made the user meanwhile: its row is there once it committed.
  return made === undefined ? await lockUser(tx, user, false) : Number(made.seq);
}

/** The user's chat, its user locked; 404 `No chat "<id>"` when it is missing or another user's. */
async function findChat(tx: Tx, user: string, id: string): Promise<ChatKey> {
  const userSeq = await lockUser(tx, user, false);
  const [row] = userSeq === undefined ? [] : await tx`SELECT c.seq, c.prepared,
      (SELECT COALESCE(MAX(m.position) + 1, 0) FROM messages m WHERE m.chat_seq = c.seq) AS next
    FROM chats c WHERE c.id = ${id} AND c.user_seq = ${userSeq}`;
  if (row === undefined) throw noChat(id);
  return {
    id,
    seq: Number(row.seq),
    userSeq: userSeq!,
    prepared: Number(row.prepared) === 1,
    next: Number(row.next),
  };
}

/** The keys of the user's documents among `ids`; 404 naming every one missing or another user's. */
async function documentSeqs(
  tx: Tx,
  userSeq: number,
  ids: Iterable<string>,
): Promise<Map<string, number>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await tx`SELECT id, seq FROM documents
    WHERE user_seq = ${userSeq} AND id = ANY(${unique})`;
  const seqs = new Map(rows.map((row) => [String(row.id), Number(row.seq)]));
  const missing = unique.filter((id) => !seqs.has(id));
  if (missing.length > 0) throw noDocuments(missing);
  return seqs;
}

async function insertChatDocuments(
  tx: Tx,
  chatSeq: number,
  first: number,
  documents: DocumentRecord[],
  seqs: Map<string, number>,
  what: string,
  verb: "save" | "add" = "save",
): Promise<void> {
  for (const [index, document] of documents.entries()) {
    await step(
      verb === "save"
        ? `save document ${quote(document.id)} of ${what}`
        : `add document ${quote(document.id)} to ${what}`,
      tx`INSERT INTO chat_documents (chat_seq, position, document_seq, name)
        VALUES (${chatSeq}, ${first + index}, ${seqs.get(document.id)!}, ${document.name})`,
    );
  }
}

/**
 * The question an answer answers: the one whose id it names, else the chat's
 * last question (see `QUESTION_OF_ANSWER`).
 */
function questionOf(tx: Tx, chatSeq: number, id: string | undefined) {
  return tx`COALESCE(
    (SELECT q.seq FROM messages q WHERE q.id = ${id ?? null} AND q.chat_seq = ${chatSeq}
      AND q.role = 'user'),
    (SELECT q.seq FROM messages q WHERE q.chat_seq = ${chatSeq} AND q.role = 'user'
      ORDER BY q.position DESC LIMIT 1))`;
}

/**
 * Appends the messages with their sources, each answer linked to its
 * question; a source its document has already is reused.
 */
async function appendMessages(
  tx: Tx,
  chatSeq: number,
  first: number,
  messages: NewMessage[],
  documents: Map<string, number>,
): Promise<void> {
  for (const [index, message] of messages.entries()) {
    const what = `message ${quote(message.id)}`;
    const [inserted] = await step(
      `save ${what}`,
      tx`INSERT INTO messages
          (id, chat_seq, position, role, content, timestamp, citations, status, error,
            question_seq)
        VALUES (${message.id}, ${chatSeq}, ${first + index}, ${message.role}, ${message.content},
          ${message.timestamp}, ${JSON.stringify(message.citations)}, ${storedStatus(message)},
          ${message.error ?? null},
          ${message.role === "assistant" ? questionOf(tx, chatSeq, message.question) : null})
        RETURNING seq`,
    );
    if (message.runsUntil !== undefined) {
      await step(
        `save ${what}`,
        tx`INSERT INTO answer_runs (message_seq, expires)
          VALUES (${inserted!.seq}, ${message.runsUntil})`,
      );
    }
    for (const [position, source] of message.sources.entries()) {
      const documentSeq = documents.get(source.document.id)!;
      const action = `save source ${quote(source.id)} of ${what}`;
      await step(
        action,
        tx`INSERT INTO sources (id, document_seq, location, content, num_tokens)
          VALUES (${source.id}, ${documentSeq}, ${source.location}, ${source.content},
            ${source.num_tokens}) ON CONFLICT (document_seq, id) DO NOTHING`,
      );
      await step(
        action,
        tx`INSERT INTO message_sources (message_seq, position, source_seq) VALUES (
          ${inserted!.seq}, ${position},
          (SELECT seq FROM sources WHERE document_seq = ${documentSeq} AND id = ${source.id}))`,
      );
    }
  }
}

/**
 * Removes the messages that `which` selects (a condition on `messages`), their
 * links to sources, and those of their sources that no other message links to.
 */
async function removeMessages(
  tx: Tx,
  which: Postgres.PendingQuery<Postgres.Row[]>,
  action: string,
) {
  const sources = (await tx`SELECT DISTINCT ms.source_seq FROM messages m
    JOIN message_sources ms ON ms.message_seq = m.seq
    WHERE m.seq IN (SELECT seq FROM messages WHERE ${which})`).map((row) => String(row.source_seq));
  await step(
    action,
    tx`DELETE FROM answer_runs WHERE message_seq IN (SELECT seq FROM messages WHERE ${which})`,
  );
  await step(
    action,
    tx`DELETE FROM message_sources WHERE message_seq IN (SELECT seq FROM messages WHERE ${which})`,
  );
  await step(action, tx`DELETE FROM messages WHERE ${which}`);
  if (sources.length === 0) return;
  await step(
    action,
    tx`DELETE FROM sources WHERE seq = ANY(${sources}::bigint[])
      AND NOT EXISTS (SELECT 1 FROM message_sources ms WHERE ms.source_seq = sources.seq)`,
  );
}

async function accountSeq(tx: Tx, user: string): Promise<number> {
  const userSeq = await lockUser(tx, user, false);
  const [row] = userSeq === undefined
    ? []
    : await tx`SELECT user_seq FROM accounts WHERE user_seq = ${userSeq}`;
  if (row === undefined) {
    throw new SvcError(`The user ${quote(user)} has no account: "svc user list" lists them`, {
      status: 404,
    });
  }
  return userSeq!;
}

/** Runs one statement of a write; its failure is reported by what it does: `save message "m1"`. */
async function step<T>(action: string, query: Promise<T>): Promise<T> {
  try {
    return await query;
  } catch (error) {
    throw postgresError(`Cannot ${action}`, error);
  }
}

function toDocument(row: Postgres.Row): StoredDocument {
  return {
    id: String(row.id),
    name: String(row.name),
    metadata: JSON.parse(String(row.metadata)),
  };
}
