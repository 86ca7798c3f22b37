/**
 * The shapes of the REST API, defined here once, as zod schemas: request
 * bodies are checked with them, `/openapi.json` is generated from them, and
 * their TypeScript types, inferred from them, are what the routes, the
 * database (`server/database/records.ts`) and the web UI (`ui/api_types.ts`)
 * import, type-only, so that no zod reaches the browser bundle.
 * @module
 */
import { z } from "zod";

/** The longest name of a document or a chat, in characters: what most file systems take. */
export const MAX_NAME_LENGTH = 255;

// The schemas that the public `Database` type reaches (through its records) spell out their
// zod types, as JSR asks of a public API (no slow types). The compiler checks that each schema
// fits its spelling, but not that the spelling names every key: a key added to one of them goes
// into its spelling too, else its inferred TypeScript type lacks it.

// The database cannot keep U+0000 (it would cut the text there), so no text field takes it.
const Text: z.ZodString = z.string().refine((text) => !text.includes("\0"), {
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
const Name: z.ZodString = Text.refine((name) => [...name].length <= MAX_NAME_LENGTH, {
  error: `must be at most ${MAX_NAME_LENGTH} characters`,
}).meta({ description: `At most ${MAX_NAME_LENGTH} characters`, maxLength: MAX_NAME_LENGTH });

export const Document: z.ZodObject<{ id: z.ZodString; name: z.ZodString }> = z.object({
  id: Text,
  name: Name,
}).meta({ id: "Document" });
/** A stored document: `{id, name}`. */
export type Document = z.infer<typeof Document>;

export const DocumentSummary: z.ZodObject<{
  id: z.ZodString;
  name: z.ZodString;
  size: z.ZodNullable<z.ZodInt>;
  pages: z.ZodNullable<z.ZodInt>;
  chats: z.ZodArray<z.ZodString>;
}> = z.object({
  id: z.string(),
  name: z.string(),
  size: z.int().nullable().meta({ description: "The bytes of its file; null if unknown" }),
  pages: z.int().nullable().meta({
    description: "Its pages (or slides), once a chat has read it; null before, and for a format " +
      "without pages it is 1",
  }),
  chats: z.array(z.string()).meta({
    description: "The ids of the user's chats that use it, as one of their documents or " +
      "through the sources of their answers, oldest first: DELETE /documents/{id} is refused " +
      "while there are any",
  }),
}).meta({ id: "DocumentSummary" });
/** A document as `GET /documents` lists it. */
export type DocumentSummary = z.infer<typeof DocumentSummary>;

export const Source: z.ZodObject<{
  id: z.ZodString;
  document: typeof Document;
  location: z.ZodString;
  content: z.ZodString;
  num_tokens: z.ZodInt;
}> = z.object({
  id: z.string(),
  document: Document,
  location: z.string().meta({ description: 'Pages as "1-3, 5", or "" for formats without pages' }),
  content: z.string(),
  num_tokens: z.int(),
}).meta({ id: "Source" });
/** A passage of a document that an answer is based on. */
export type Source = z.infer<typeof Source>;

export const Feedback: z.ZodObject<{
  rating: z.ZodEnum<{ good: "good"; bad: "bad" }>;
  note: z.ZodOptional<z.ZodString>;
  timestamp: z.ZodString;
}> = z.object({
  rating: z.enum(["good", "bad"]),
  note: z.string().optional().meta({ description: "What the user wrote about the answer" }),
  timestamp: z.string().meta({ description: "When it was given (ISO 8601, UTC)" }),
}).meta({ id: "Feedback" });
/** What a user thought of an answer. */
export type Feedback = z.infer<typeof Feedback>;

type MessageShape = {
  id: z.ZodString;
  content: z.ZodString;
  role: z.ZodEnum<{ system: "system"; user: "user"; assistant: "assistant" }>;
  sources: z.ZodArray<typeof Source>;
  timestamp: z.ZodString;
  citations: z.ZodArray<z.ZodInt>;
  status: z.ZodOptional<
    z.ZodEnum<{ streaming: "streaming"; stopped: "stopped"; failed: "failed" }>
  >;
  error: z.ZodOptional<z.ZodString>;
  feedback: z.ZodOptional<typeof Feedback>;
};

const MESSAGE_SHAPE: MessageShape = {
  id: z.string(),
  content: z.string(),
  role: z.enum(["system", "user", "assistant"]),
  sources: z.array(Source),
  timestamp: z.string().meta({ description: "ISO 8601, UTC" }),
  citations: z.array(z.int().min(1)).meta({
    description: "The sources the content cites with [n] markers, by rank in `sources` from 1, " +
      "each once, in the order first cited; a marker without a source is not listed. On a " +
      "streamed line, the sources cited up to and including that line",
  }),
  status: z.enum(["streaming", "stopped", "failed"]).optional().meta({
    description: 'Left out for a complete message; "streaming": an answer still being written, ' +
      "its content as far as it was saved (GET /chats/{id}/messages/{message_id}/stream follows " +
      'it); "stopped": an answer stopped (POST /chats/{id}/stop, or the server stopping), its ' +
      'content as far as it was written; "failed": an answer that broke off, its content as far ' +
      "as it was written (perhaps none)",
  }),
  error: z.string().optional().meta({
    description: "Why an answer stopped or failed, in words; left out otherwise",
  }),
  feedback: Feedback.optional().meta({
    description: "The user's rating of an answer (POST /chats/{id}/messages/{message_id}/feedback)",
  }),
};

export const MessageVersion: z.ZodObject<MessageShape> = z.object(MESSAGE_SHAPE).meta({
  id: "MessageVersion",
});
/** A version of a message: an earlier answer to its question, or an earlier wording of it. */
export type MessageVersion = z.infer<typeof MessageVersion>;

export const Message: z.ZodObject<
  MessageShape & { versions: z.ZodOptional<z.ZodArray<typeof MessageVersion>> }
> = z.object({
  ...MESSAGE_SHAPE,
  versions: z.array(MessageVersion).optional().meta({
    description: "Every version, oldest first, the message itself last, when there are two or " +
      "more: an answer's are the answers its question had (POST /chats/{id}/regenerate keeps " +
      "them), a question's the wordings it had (POST /chats/{id}/messages/{message_id}/edit; " +
      "GET /chats/{id}/messages/{message_id}/branch gives the conversation that followed one)",
  }),
}).meta({ id: "Message" });
/** A message of a chat, with all its sources. */
export type Message = z.infer<typeof Message>;

/** A line of a streamed answer: the first carries all sources, each later one `null`. */
export const MessageLine = Message.extend({
  sources: z.array(Source).nullable().meta({
    description: "All sources; null on the later lines of a stream",
  }),
}).meta({ id: "MessageLine" });
/** A line of a streamed answer: `sources` is `null` after the first line. */
export type MessageLine = z.infer<typeof MessageLine>;

export const ChatMetadata: z.ZodObject<{
  name: z.ZodString;
  source_storage: z.ZodString;
  assistant: z.ZodString;
  params: z.ZodRecord<z.ZodString, z.ZodUnknown>;
  documents: z.ZodArray<typeof Document>;
}, z.core.$strict> = z.strictObject({
  name: Name,
  source_storage: Text.meta({ description: "The display name of a source storage" }),
  assistant: Text.meta({ description: "The display name of an assistant" }),
  params: z.record(z.string(), z.unknown()),
  documents: z.array(Document),
}).meta({ id: "ChatMetadata" });
/** What a chat was created with; `POST /chats` echoes it exactly as sent. */
export type ChatMetadata = z.infer<typeof ChatMetadata>;

export const Chat: z.ZodObject<{
  id: z.ZodString;
  metadata: typeof ChatMetadata;
  messages: z.ZodArray<typeof Message>;
  prepared: z.ZodBoolean;
}> = z.object({
  id: z.string(),
  metadata: ChatMetadata,
  messages: z.array(Message),
  prepared: z.boolean(),
}).meta({ id: "Chat" });
/** A chat with all its messages, oldest first. */
export type Chat = z.infer<typeof Chat>;

export const ChatSummary: z.ZodObject<{
  id: z.ZodString;
  metadata: typeof ChatMetadata;
  prepared: z.ZodBoolean;
  num_messages: z.ZodInt;
  last_activity: z.ZodNullable<z.ZodString>;
}> = z.object({
  id: z.string(),
  metadata: ChatMetadata,
  prepared: z.boolean(),
  num_messages: z.int().meta({ description: "How many messages the chat has" }),
  last_activity: z.string().nullable().meta({
    description: "The timestamp of the chat's last message (ISO 8601, UTC); null without messages",
  }),
}).meta({ id: "ChatSummary" });
/** A chat without its messages, as `GET /chats?messages=false` lists it. */
export type ChatSummary = z.infer<typeof ChatSummary>;

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
/** The answer of `POST /document`: the document, and where and how to upload its file. */
export type DocumentUpload = z.infer<typeof DocumentUpload>;

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

/** What `POST /api-keys` takes: the key's name, held to the rules of a document's name. */
export const ApiKeyCreation = z.strictObject({
  name: DocumentName.meta({ description: "What the key is for: 1 to 255 characters" }),
});

export const ApiKey = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().meta({ description: 'The first characters of the key: "svc_" and 8 more' }),
  created: z.string().meta({ description: "When it was made (ISO 8601)" }),
  last_used: z.string().nullable().meta({
    description: "When it was last used (ISO 8601, to the minute), null while never used",
  }),
}).meta({ id: "ApiKey" });
/** An API key as its owner lists it, without the key itself. */
export type ApiKey = z.infer<typeof ApiKey>;

export const NewApiKey = ApiKey.extend({
  key: z.string().meta({
    description: 'The key, shown this once: send it as "Authorization: Bearer svc_..."',
  }),
}).meta({ id: "NewApiKey" });
/** A key just made: its record, and the key itself, which is never shown again. */
export type NewApiKey = z.infer<typeof NewApiKey>;

export const AnswerBody = z.strictObject({
  prompt: Text,
  stream: z.boolean().default(false),
});

/** One chat parameter of a component, as JSON Schema: the keywords clients read, and any other. */
export const ParamSchema = z.looseObject({
  type: z.union([z.string(), z.array(z.string())]).optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  default: z.unknown().optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  exclusiveMinimum: z.number().optional(),
  exclusiveMaximum: z.number().optional(),
  enum: z.array(z.unknown()).optional(),
}).meta({ id: "ParamSchema" });
/** One chat parameter of a component, as JSON Schema. */
export type ParamSchema = z.infer<typeof ParamSchema>;

/** A component as JSON Schema: `title` is its display name, `properties` its chat parameters. */
export const ComponentSchema = z.looseObject({
  title: z.string().meta({ description: "The component's display name" }),
  type: z.literal("object").optional(),
  properties: z.record(z.string(), ParamSchema).optional(),
  required: z.array(z.string()).optional(),
}).meta({ id: "ComponentSchema" });
/** A component as JSON Schema: `title` is its display name, `properties` its chat parameters. */
export type ComponentSchema = z.infer<typeof ComponentSchema>;

export const Components = z.object({
  documents: z.array(z.string()),
  source_storages: z.array(ComponentSchema),
  assistants: z.array(ComponentSchema),
});
/** `GET /components`: the document suffixes, and each component with its chat parameters. */
export type Components = z.infer<typeof Components>;

export const DocumentPage = z.object({
  number: z.int().nullable().meta({
    description: "The page or slide number, from 1; null for a format without pages",
  }),
  text: z.string().meta({ description: "The text svc extracted from the page" }),
}).meta({ id: "DocumentPage" });
/** A page of a document as svc reads it: its number and its text. */
export type DocumentPage = z.infer<typeof DocumentPage>;

export const DocumentPages = z.object({ pages: z.array(DocumentPage) });

/** Where a block's text is in the text it belongs to: from `start` to `end`, in UTF-16 units. */
const PLACE = {
  start: z.int().meta({ description: "Where its text starts in the slide's text" }),
  end: z.int().meta({ description: "Where its text ends in the slide's text" }),
};

export const SlideBlock = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("title"), text: z.string(), ...PLACE }),
  z.object({ kind: z.literal("text"), paragraphs: z.array(z.string()), ...PLACE }),
  z.object({ kind: z.literal("table"), rows: z.array(z.array(z.string())), ...PLACE }),
]).meta({ id: "SlideBlock" });

export const DocumentView = z.discriminatedUnion("format", [
  z.object({ format: z.literal("pdf") }).meta({
    description: "Shown from its file: GET /documents/{id}/content",
  }),
  z.object({
    format: z.literal("docx"),
    html: z.string().meta({
      description: "Sanitised HTML: headings, paragraphs, lists, tables, emphasis, links to web " +
        "and mail addresses; no images, scripts, styles or event attributes. Each paragraph, " +
        "heading, list item and table that holds text has data-start and data-end: where its " +
        'text is in "text"',
    }),
    text: z.string().meta({
      description: "The text svc indexes: a source's passage is found in it",
    }),
  }),
  z.object({
    format: z.literal("pptx"),
    slides: z.array(z.object({
      number: z.int().meta({ description: "From 1, in presentation order" }),
      title: z.string().nullable(),
      blocks: z.array(SlideBlock).meta({
        description: "The title, text boxes and tables, in document order",
      }),
      text: z.string().meta({
        description: "The slide's text as svc indexes it: a source's passage is found in it",
      }),
    })),
  }),
  z.object({
    format: z.enum(["markdown", "text"]),
    text: z.string().meta({ description: "The text as svc indexes it" }),
  }),
]).meta({ id: "DocumentView" });
/** `GET /documents/{id}/view`: a document as the web UI shows it. */
export type DocumentView = z.infer<typeof DocumentView>;
/** `GET /documents/{id}/pages`: the document's pages, in order. */
export type DocumentPages = z.infer<typeof DocumentPages>;

export const ErrorBody = z.object({
  error: z.object({ message: z.string() }),
}).meta({ id: "Error" });

export const PrepareProgress = z.object({
  document: Document,
  stage: z.enum(["reading", "parsed", "indexed", "failed"]).meta({
    description: '"reading" its bytes; "parsed", its text out; "indexed", stored for search (its ' +
      'end); "failed", not prepared: "error" says why',
  }),
  pages: z.int().optional().meta({ description: 'The pages parsed, from "parsed" on' }),
  chunks: z.int().optional().meta({
    description: 'The passages indexed, at "indexed" (left out for an index made before)',
  }),
  error: z.string().optional().meta({ description: 'Why the document failed, at "failed"' }),
}).meta({ id: "PrepareProgress" });
/** One step of one document while a chat's documents are prepared. */
export type PrepareProgress = z.infer<typeof PrepareProgress>;

/** A line of a prepare stream: a step, then the result last (a message, a chat) or an error. */
export const ProgressLine = z.object({ progress: PrepareProgress }).meta({
  id: "ProgressLine",
  description: "A step of a document; the last line of the stream is the result or an error",
});

/** What `PATCH /chats/{id}` takes: the chat's new name. */
export const ChatRename = z.strictObject({
  name: Name.refine((name) => name.trim() !== "", { error: "must not be empty" }),
});

/** What `POST /chats/{id}/regenerate` takes: whether to stream the new answer. */
export const RegenerateBody = z.strictObject({ stream: z.boolean().default(false) });

/** What `POST /chats/{id}/documents` takes: uploaded documents to add to the chat. */
export const ChatDocuments = z.strictObject({
  documents: z.array(Document).min(1).meta({
    description: "Documents of the user's, none of them the chat's already",
  }),
});

/** The longest note of a feedback, in characters. */
export const MAX_NOTE_LENGTH = 4000;

/** What `POST /chats/{id}/messages/{message_id}/feedback` takes. */
export const FeedbackBody = z.strictObject({
  rating: z.enum(["good", "bad"]).nullable().meta({
    description: "How good the answer was; null takes the feedback back",
  }),
  note: Text.refine((note) => [...note].length <= MAX_NOTE_LENGTH, {
    error: `must be at most ${MAX_NOTE_LENGTH} characters`,
  }).optional().meta({ description: `At most ${MAX_NOTE_LENGTH} characters` }),
});

/** What `POST /chats/{id}/stop` answers. */
export const StopResult = z.object({
  stopped: z.int().meta({
    description: "How many running answers of the chat were told to stop: those of this " +
      "server are stored as stopped when it answers, those of another replica within a save " +
      "interval (SVC_API_ANSWER_SAVE_INTERVAL)",
  }),
});
