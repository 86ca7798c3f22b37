/**
 * What the database stores, in the shapes of the REST API, so that routes can
 * answer with them as they are. The shapes are defined once, as the API's zod
 * schemas (`server/api/schemas.ts`); this module names their types as the
 * database speaks of them, and adds what only it keeps.
 * @module
 */
import type {
  Chat,
  ChatMetadata,
  ChatSummary,
  Document,
  DocumentSummary,
  Feedback,
  Message,
  Source,
} from "../api/schemas.ts";

export type { ChatMetadata, ChatSummary, Feedback };

/** A document as the REST API shows it. */
export type DocumentRecord = Document;

/** A document with what svc keeps about it besides its name (e.g. its path). */
export interface StoredDocument extends DocumentRecord {
  metadata: Record<string, unknown>;
}

/** A passage of a document that an answer is based on. */
export type SourceRecord = Source;

/** Who wrote a message. */
export type MessageRole = Message["role"];

/** A message of a chat, with all its sources. */
export type MessageRecord = Message;

/**
 * A message to append to a chat. An answer may name the question it answers
 * by the question's id, when answers are written at once; without it, it
 * answers the chat's last question. Only the database keeps the link. An
 * answer still being written has `runsUntil`: the end of its run's lease, in
 * milliseconds since the epoch (see `Database.saveAnswers`).
 */
export type NewMessage = Omit<MessageRecord, "versions"> & {
  question?: string;
  runsUntil?: number;
};

/** A chat with all its messages, oldest first. */
export type ChatRecord = Chat;

/** The text so far of an answer being written, or only that it still runs (no `content`). */
export interface AnswerProgress {
  id: string;
  content?: string;
  citations?: number[];
}

/** How an answer that was being written ended: complete (no status), stopped or failed. */
export interface AnswerEnd {
  id: string;
  content: string;
  citations: number[];
  status?: "stopped" | "failed";
  /** Why it did not end complete, in words. */
  error?: string;
}

/** A document of the user as `GET /documents` lists it. */
export type DocumentListing = DocumentSummary;

/** An answer the user rated, with its question and the sources it cites. */
export interface RatedAnswer {
  user: string;
  chat: string;
  question: string;
  /** The sources the answer cites with [n] markers, else all its sources. */
  sources: SourceRecord[];
}
