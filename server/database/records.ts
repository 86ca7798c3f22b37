/**
 * What the database stores, in the shapes of the REST API, so that routes can
 * answer with them as they are. The shapes are defined once, as the API's zod
 * schemas (`server/api/schemas.ts`); this module names their types as the
 * database speaks of them, and adds what only it keeps.
 * @module
 */
import type { Chat, ChatMetadata, ChatSummary, Document, Message, Source } from "../api/schemas.ts";

export type { ChatMetadata, ChatSummary };

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
 * answers the chat's last question. Only the database keeps the link.
 */
export type NewMessage = MessageRecord & { question?: string };

/** A chat with all its messages, oldest first. */
export type ChatRecord = Chat;
