/**
 * The shapes of the REST API, as zod schemas: request bodies are checked with
 * them, and `/openapi.json` is generated from them.
 * @module
 */
import { z } from "zod";

export const Document = z.object({ id: z.string(), name: z.string() }).meta({ id: "Document" });

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
  name: z.string(),
  source_storage: z.string().meta({ description: "The display name of a source storage" }),
  assistant: z.string().meta({ description: "The display name of an assistant" }),
  params: z.record(z.string(), z.unknown()),
  documents: z.array(Document),
}).meta({ id: "ChatMetadata" });

export const Chat = z.object({
  id: z.string(),
  metadata: ChatMetadata,
  messages: z.array(Message),
  prepared: z.boolean(),
}).meta({ id: "Chat" });

export const Registration = z.strictObject({ name: z.string().min(1) });

export const DocumentUpload = z.object({
  document: Document,
  parameters: z.object({
    url: z.string(),
    method: z.literal("PUT"),
    data: z.object({ token: z.string() }),
  }),
});

export const UploadForm = z.object({
  token: z.string(),
  file: z.string().meta({ format: "binary" }),
});

export const LoginForm = z.object({ username: z.string(), password: z.string() });

export const AnswerBody = z.strictObject({
  prompt: z.string(),
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
