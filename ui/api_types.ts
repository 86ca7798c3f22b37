/**
 * The shapes of the REST API as the web UI sees them. Declared here rather
 * than inferred from the server's zod schemas, so that no zod reaches the
 * browser bundle.
 * @module
 */

/** A stored document. */
export interface Document {
  id: string;
  name: string;
}

/** A passage an answer was made from. */
export interface Source {
  id: string;
  document: Document;
  /** Pages as `1-3, 5` (or already `page 3`), empty where the format has none. */
  location: string;
  content: string;
  num_tokens: number;
}

/** A message of a chat; in a stream, `sources` is null after the first line. */
export interface Message {
  id: string;
  content: string;
  role: "system" | "user" | "assistant";
  sources: Source[] | null;
  timestamp: string;
}

/** What a chat was made with. */
export interface ChatMetadata {
  name: string;
  source_storage: string;
  assistant: string;
  params: Record<string, unknown>;
  documents: Document[];
}

/** A chat with its messages. */
export interface Chat {
  id: string;
  metadata: ChatMetadata;
  messages: Message[];
  prepared: boolean;
}

/** A chat without its messages, as the list of chats gives it (`GET /chats?messages=false`). */
export interface ChatSummary {
  id: string;
  metadata: ChatMetadata;
  prepared: boolean;
  /** How many messages the chat has. */
  num_messages: number;
  /** The timestamp of its last message; `null` without messages. */
  last_activity: string | null;
}

/** One parameter of a component, as JSON Schema. */
export interface ParamSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: unknown[];
}

/** A component: `title` is its display name, `properties` its chat parameters. */
export interface ComponentSchema {
  title: string;
  type?: "object";
  properties?: Record<string, ParamSchema>;
  required?: string[];
}

/** `GET /components`. */
export interface Components {
  documents: string[];
  source_storages: ComponentSchema[];
  assistants: ComponentSchema[];
}

/** `POST /document`. */
export interface DocumentUpload {
  document: Document;
  parameters: { url: string; method: string; data: Record<string, string> };
}

/** What the UI server tells the app in its page. */
export interface UiSettings {
  /** The REST API, as `api.url` says. */
  apiUrl: string;
  /** The svc version of the UI server. */
  version: string;
  /** The configured authentication is the demo one; `sharedPassword` when env sets its password. */
  demoAuthentication: { sharedPassword: boolean } | null;
}
