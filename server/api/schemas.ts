/**
 * The shapes of the REST API, as zod schemas: request bodies are checked with
 * them, and `/openapi.json` is generated from them.
 * @module
 */
import { z } from "zod";

/** The longest name of a document or a chat, in characters: what most file systems take. */
export const MAX_NAME_LENGTH = 255;

// The database cannot keep U+0000 (it would cut the text there), so no text field takes it.
const Text = z.string().refine((text) => !text.includes("\0"), {
  error: "must not contain the character U+0000",
});

/** A document's name: 1 to 255 characters, none of them a control character. */
const DocumentName = z.string().min(1).refine((name) => [...name].length <= MAX_NAME_LENGTH, {
  error: `must be at most ${MAX_NAME_LENGTH} characters`,
}).refine((name) => !/\p{Cc}/u.test(name), {
  error: "must not contain control characters",
}).meta({
  description: `At most ${MAX_NAME_LENGTH} characters, no control characters`,
  maxLength: MAX_NAME_LENGTH,
});

/** A chat's name, or a document's as a chat names it: at most 255 characters. */
const Name = Text.refine((name) => [...name].length <= MAX_NAME_LENGTH, {
  error: `must be at most ${MAX_NAME_LENGTH} characters`,
}).meta({ description: `At most ${MAX_NAME_LENGTH} characters`, maxLength: MAX_NAME_LENGTH });

export const Document = z.object({ id: Text, name: Name }).meta({ id: "Document" });

export const Source = z.object({
  id: z.string(),
  document: Document,
  location: z.string().meta({ description: 'Pages as "1-3, 5", or "" for formats without pages' }),
  content: z.string(),
  num_tokens: z.int(),
}).meta({ id: "Source" });

export const Message = z.object({
  id: z.string(),
  content: z.string(),
  role: z.enum(["system", "user", "assistant"]),
  sources: z.array(Source).nullable().meta({
    description: "All sources; null on the later lines of a stream",
  }),
  timestamp: z.string().meta({ description: "ISO 8601, UTC" }),
}).meta({ id: "Message" });

export const ChatMetadata = z.strictObject({
  name: Name,
  source_storage: Text.meta({ description: "The display name of a source storage" }),
  assistant: Text.meta({ description: "The display name of an assistant" }),
  params: z.record(z.string(), z.unknown()),
  documents: z.array(Document),
}).meta({ id: "ChatMetadata" });

export const Chat = z.object({
  id: z.string(),
  metadata: ChatMetadata,
  messages: z.array(Message),
  prepared: z.boolean(),
}).meta({ id: "Chat" });

export const ChatSummary = z.object({
  id: z.string(),
  metadata: ChatMetadata,
  prepared: z.boolean(),
  num_messages: z.int().meta({ description: "How many messages the chat has" }),
  last_activity: z.string().nullable().meta({
    description: "The timestamp of the chat's last message (ISO 8601, UTC); null without messages",
  }),
}).meta({ id: "ChatSummary" });

/** The query of `GET /chats`: with every message of every chat (0.2.1), or without. */
export const ChatListQuery = z.object({
  messages: z.enum(["true", "false"]).default("true").meta({
    description: '"false" lists each chat without its messages (a `ChatSummary`): how many it ' +
      'has and when the last was written; "true", the default, with all of them (a `Chat`)',
  }),
});

export const Registration = z.strictObject({ name: DocumentName });

export const DocumentUpload = z.object({
  document: Document,
  parameters: z.object({
    url: z.string(),
    method: z.literal("PUT"),
    data: z.object({ token: z.string() }),
  }),
});

export const UploadForm = z.object({
  token: z.string().meta({
    description: "The upload token of POST /document, before the file part; or in the " +
      "X-Upload-Token header or the token query parameter instead",
  }),
  file: z.string().meta({ format: "binary" }),
});

const UPLOAD_TOKEN = "The upload token of POST /document, checked before the body is parsed; " +
  'the form\'s "token" field may carry it instead';

export const UploadQuery = z.object({ token: z.string().meta({ description: UPLOAD_TOKEN }) });

export const UploadHeaders = z.object({
  "X-Upload-Token": z.string().meta({ description: UPLOAD_TOKEN }),
});

export const LoginForm = z.object({ username: z.string(), password: z.string() });

export const AnswerBody = z.strictObject({
  prompt: Text,
  stream: z.boolean().default(false),
});

export const Components = z.object({
  documents: z.array(z.string()),
  source_storages: z.array(z.record(z.string(), z.unknown())),
  assistants: z.array(z.record(z.string(), z.unknown())),
});

export const ErrorBody = z.object({
  error: z.object({ message: z.string() }),
}).meta({ id: "Error" });
