/**
 * What the database stores, in the shapes of the REST API (CONTRACT section 4),
 * so that routes can answer with them as they are.
 * @module
 */

/** A document as the REST API shows it. */
export interface DocumentRecord {
  id: string;
  name: string;
}

/** A document with what svc keeps about it besides its name (e.g. its path). */
export interface StoredDocument extends DocumentRecord {
  metadata: Record<string, unknown>;
}

/** A passage of a document that an answer is based on. */
export interface SourceRecord {
  /** Given by the source storage. */
  id: string;
  document: DocumentRecord;
  /** Pages as `1-3, 5`, or `""` where the format has no pages. */
  location: string;
  content: string;
  num_tokens: number;
}

/** Who wrote a message. */
export type MessageRole = "system" | "user" | "assistant";

/** A message of a chat. */
export interface MessageRecord {
  id: string;
  content: string;
  role: MessageRole;
  sources: SourceRecord[];
  /** ISO 8601 in UTC with milliseconds, e.g. `"2026-11-26T01:02:03.456Z"`. */
  timestamp: string;
}

/** What a chat was created with. */
export interface ChatMetadata {
  name: string;
  source_storage: string;
  assistant: string;
  params: Record<string, unknown>;
  documents: DocumentRecord[];
}

/** A chat with all its messages, oldest first. */
export interface ChatRecord {
  id: string;
  metadata: ChatMetadata;
  messages: MessageRecord[];
  prepared: boolean;
}

/**
 * A chat without its messages, as the light list of chats shows it: what a
 * list of chats needs, whatever the length of the conversations.
 */
export interface ChatSummary {
  id: string;
  metadata: ChatMetadata;
  prepared: boolean;
  /** How many messages the chat has. */
  num_messages: number;
  /** The timestamp of its last message; `null` for a chat without messages. */
  last_activity: string | null;
}
