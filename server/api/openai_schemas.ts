/**
 * The shapes of the OpenAI-compatible routes (`/v1/models`,
 * `/v1/chat/completions`), as zod schemas: the request body is checked with
 * them and `/openapi.json` describes the routes with them. They are the
 * subset of OpenAI's shapes that svc reads or writes, with svc's sources as
 * the extra field `sources`.
 * @module
 */
import { z } from "zod";
import { Source } from "./schemas.ts";

/** A part of a message's content: only text is read. */
const ContentPart = z.looseObject({
  type: z.literal("text"),
  text: z.string(),
});

/** A message of the conversation a client sends. */
export const CompletionMessage = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant"]),
  content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
});
/** A message of the conversation a client sends. */
export type CompletionMessage = z.infer<typeof CompletionMessage>;

// Loose: clients send sampling settings (temperature, max_tokens, ...) that
// have no meaning for a chat whose assistant is configured in svc; they are ignored.
export const CompletionBody = z.looseObject({
  model: z.string().min(1).meta({ description: "The id of one of the user's prepared chats" }),
  messages: z.array(CompletionMessage).min(1).meta({
    description: "The conversation, oldest first; the last is the user's question",
  }),
  stream: z.boolean().nullable().optional().meta({
    description: "Answer as server-sent events of chat.completion.chunk objects",
  }),
}).meta({ id: "ChatCompletionRequest" });

/** A chat as a model: its id, and its name in `name`. */
export const Model = z.object({
  id: z.string().meta({ description: "The chat's id" }),
  object: z.literal("model"),
  created: z.int().meta({ description: "Always 0: svc keeps no creation time of a chat" }),
  owned_by: z.string().meta({ description: "The user" }),
  name: z.string().meta({ description: "The chat's name" }),
}).meta({ id: "Model" });
/** A chat as a model. */
export type Model = z.infer<typeof Model>;

export const ModelList = z.object({
  object: z.literal("list"),
  data: z.array(Model),
}).meta({ id: "ModelList" });

const Sources = z.array(Source).meta({
  description: "The passages the answer is based on (svc's own field); the text ends with a " +
    "numbered list of their documents and pages",
});

export const Completion = z.object({
  id: z.string(),
  object: z.literal("chat.completion"),
  created: z.int(),
  model: z.string(),
  choices: z.array(z.object({
    index: z.literal(0),
    message: z.object({
      role: z.literal("assistant"),
      content: z.string(),
      refusal: z.null(),
    }),
    finish_reason: z.literal("stop"),
    logprobs: z.null(),
  })),
  sources: Sources,
}).meta({ id: "ChatCompletion" });
/** A whole answer. */
export type Completion = z.infer<typeof Completion>;

export const CompletionChunk = z.object({
  id: z.string(),
  object: z.literal("chat.completion.chunk"),
  created: z.int(),
  model: z.string(),
  choices: z.array(z.object({
    index: z.literal(0),
    delta: z.object({ role: z.literal("assistant").optional(), content: z.string().optional() }),
    finish_reason: z.literal("stop").nullable(),
    logprobs: z.null(),
  })),
  sources: Sources.optional().meta({ description: "All sources, on the first chunk only" }),
}).meta({ id: "ChatCompletionChunk" });
/** One event of a streamed answer. */
export type CompletionChunk = z.infer<typeof CompletionChunk>;

export const OpenAiErrorBody = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string().nullable(),
  }),
}).meta({ id: "OpenAIError" });
/** An error as OpenAI's API gives it. */
export type OpenAiErrorBody = z.infer<typeof OpenAiErrorBody>;
