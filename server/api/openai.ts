/**
 * The OpenAI-compatible routes, for the clients people already use: each of
 * the user's prepared chats is a model (`GET /v1/models`), and
 * `POST /v1/chat/completions` answers the last user message over that chat's
 * documents, whole or as server-sent events of `chat.completion.chunk`s.
 * Errors have OpenAI's shape, `{"error": {"message", "type", "param", "code"}}`.
 *
 * The chat's history stays svc's: the client's earlier messages are the
 * conversation the question is answered in, and only the last user message
 * and its answer are stored, as a turn of the chat.
 * @module
 */
import { Hono, type MiddlewareHandler } from "hono";
import { quote, SvcError } from "../../components/core/errors.ts";
import { Message, MessageRole } from "../../components/core/message.ts";
import { type AnswerFormat, answerPrompt } from "./answer_stream.ts";
import { jsonBody } from "./body.ts";
import { coreChat } from "./chats.ts";
import type { ApiEnv } from "./env.ts";
import { errorBody, onError } from "./errors.ts";
import {
  type Completion,
  CompletionBody,
  type CompletionChunk,
  type CompletionMessage,
  type Model,
  type OpenAiErrorBody,
} from "./openai_schemas.ts";
import type * as api from "./schemas.ts";
import { pageNumbersToLocation } from "../../components/page_location.ts";
import { requestUser } from "./user.ts";

/** `GET /v1/models` and `POST /v1/chat/completions`. */
export function openAiRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.onError((error, c) =>
    openAiError(onError(c.var.deps.log)(error, c), error instanceof ModelNotFound)
  );
  // What the rest of the API answers under /v1 (a 404 or 405 of no route)
  // reaches OpenAI's clients in their shape too.
  app.use("/v1/*", reshapeErrors());

  app.get("/v1/models", async (c) => {
    const { deps } = c.var;
    const user = await requestUser(c);
    const chats = await deps.database.listChatSummaries(user);
    const data: Model[] = chats.filter((chat) => chat.prepared).map((chat) => ({
      id: chat.id,
      object: "model",
      created: 0,
      owned_by: user,
      name: chat.metadata.name,
    }));
    return c.json({ object: "list", data });
  });

  app.post("/v1/chat/completions", async (c) => {
    const { deps } = c.var;
    const user = await requestUser(c);
    const body = await jsonBody(c, CompletionBody);
    const { prompt, conversation } = question(body.messages);
    const record = await deps.database.getChat(user, body.model).catch((error) => {
      throw error instanceof SvcError && error.status === 404
        ? new ModelNotFound(body.model)
        : error;
    });
    const chat = await coreChat(deps, user, record);
    // The client's conversation, in place of whatever the chat would take from its own
    // history: what the question refers to is what the client showed its user.
    chat.messages.splice(0, chat.messages.length, ...conversation);
    // As POST /chats/{id}/answer does: the question is kept whatever becomes of the answer.
    return await answerPrompt(c, { chat, user, prompt, stream: body.stream === true }, {
      format: events(body.model),
      whole: (reply) => c.json(completion(body.model, reply)),
    });
  });

  return app;
}

/** A chat id that is none of the user's chats: OpenAI's `model_not_found`. */
class ModelNotFound extends SvcError {
  constructor(model: string) {
    super(`There is no chat ${quote(model)} of yours: GET /v1/models lists them`, {
      status: 404,
    });
  }
}

/**
 * The question (the last message, a user's) and the conversation before it.
 * @throws {SvcError} 400 when the last message is not a user's text
 */
function question(messages: CompletionMessage[]): { prompt: string; conversation: Message[] } {
  const last = messages.at(-1)!;
  const prompt = text(last);
  if (last.role !== "user" || prompt.trim() === "") {
    throw new SvcError("The last message must be the user's question, with text", {
      status: 400,
    });
  }
  const conversation = messages.slice(0, -1).map((message) =>
    new Message(text(message), {
      role: message.role === "developer" ? MessageRole.SYSTEM : message.role as MessageRole,
    })
  );
  return { prompt, conversation };
}

function text(message: CompletionMessage): string {
  const { content } = message;
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => part.text).join("");
}

function completion(model: string, reply: api.Message): Completion {
  return {
    id: `chatcmpl-${reply.id}`,
    object: "chat.completion",
    created: seconds(reply.timestamp),
    model,
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: reply.content + sourceList(reply.sources),
        refusal: null,
      },
      finish_reason: "stop",
      logprobs: null,
    }],
    sources: reply.sources,
  };
}

/** Server-sent events of `chat.completion.chunk`s, ended by `[DONE]`. */
function events(model: string): AnswerFormat {
  const event = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
  const chunk = (
    message: api.Message,
    delta: CompletionChunk["choices"][0]["delta"],
    finish: "stop" | null = null,
  ): CompletionChunk => ({
    id: `chatcmpl-${message.id}`,
    object: "chat.completion.chunk",
    created: seconds(message.timestamp),
    model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  return {
    contentType: "text/event-stream",
    head: (message: api.Message) =>
      event({
        ...chunk(message, { role: "assistant", content: message.content }),
        sources: message.sources,
      }),
    chunk: (message: api.Message, content: string) => event(chunk(message, { content })),
    end: (message: api.Message) => {
      const list = sourceList(message.sources);
      return (list ? event(chunk(message, { content: list })) : "") +
        event(chunk(message, {}, "stop")) + "data: [DONE]\n\n";
    },
    // A stopped answer ends as one that is complete, without the list of its sources.
    stopped: (message: api.Message) => event(chunk(message, {}, "stop")) + "data: [DONE]\n\n",
    // OpenAI's clients raise an event with an `error` as the error it holds.
    error: (message: string, status: number) =>
      event(openAiErrorBody(errorBody(message).error.message, status, false)),
  };
}

/**
 * The sources as a numbered list of their documents, each with its pages (slides of a
 * presentation) in order and once, for clients that show only the text: empty without sources.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sourceList } from "./openai.ts";
 * const document = { id: "d", name: "report.pdf" };
 * const source = { id: "s", document, location: "5-7", content: "", num_tokens: 0 };
 * assert.equal(
 *   sourceList([source, { ...source, location: "2" }, { ...source, location: "6" }]),
 *   "\n\nSources:\n1. report.pdf, pages 2, 5-7",
 * );
 * ```
 */
export function sourceList(sources: api.Source[]): string {
  const documents = new Map<string, { name: string; pages: number[]; others: string[] }>();
  for (const source of sources) {
    const entry = documents.get(source.document.id) ??
      { name: source.document.name, pages: [], others: [] };
    documents.set(source.document.id, entry);
    const location = source.location.trim();
    // Pages as the indexed storages give them (`5-7, 9`), or as the demo storage does (`page 2`).
    const pages = /^(?:page\s+)?\d+(?:\s*-\s*\d+)?(?:\s*,\s*\d+(?:\s*-\s*\d+)?)*$/i.test(location)
      ? location.replace(/^page\s+/i, "").split(",").flatMap((range) => {
        const [first, last = first] = range.split("-").map(Number);
        return Array.from({ length: Math.min(last! - first! + 1, MAX_RUN) }, (_, i) => first! + i);
      })
      : [];
    entry.pages.push(...pages);
    if (location && pages.length === 0 && !entry.others.includes(location)) {
      entry.others.push(location);
    }
  }
  if (documents.size === 0) return "";
  const lines = [...documents.values()].map(({ name, pages, others }, i) => {
    const unit = /\.pptx$/i.test(name) ? "slide" : "page";
    const numbers = pageNumbersToLocation(pages);
    const where = [
      ...(numbers ? [`${unit}${/^\d+$/.test(numbers) ? "" : "s"} ${numbers}`] : []),
      ...others,
    ].join("; ");
    return `${i + 1}. ${name}${where ? `, ${where}` : ""}`;
  });
  return `\n\nSources:\n${lines.join("\n")}`;
}

/** The most pages one range of a location is read out to. */
const MAX_RUN = 10_000;

function seconds(timestamp: string): number {
  return Math.floor(Date.parse(timestamp) / 1000);
}

/** Rewrites an error response of svc's shape into OpenAI's, once. */
function reshapeErrors(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    await next();
    if (c.res.status >= 400 && c.res.headers.get("content-type")?.startsWith("application/json")) {
      c.res = await openAiError(c.res, false);
    }
  };
}

/**
 * An error response in OpenAI's shape, with the status OpenAI gives: 400 for
 * a body that is not valid (svc answers 422 elsewhere). One already in that
 * shape, or not an error body, is given back as it is.
 */
async function openAiError(response: Response, modelNotFound: boolean): Promise<Response> {
  const body = await response.clone().json().catch(() => null);
  const message = body?.error?.message;
  if (typeof message !== "string" || "type" in body.error) return response;
  const status = response.status === 422 ? 400 : response.status;
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(openAiErrorBody(message, status, modelNotFound)), {
    status,
    headers,
  });
}

function openAiErrorBody(message: string, status: number, modelNotFound: boolean): OpenAiErrorBody {
  const [type, code] = modelNotFound
    ? ["invalid_request_error", "model_not_found"]
    : status === 401
    ? ["invalid_request_error", "invalid_api_key"]
    : status === 429
    ? ["rate_limit_error", "rate_limit_exceeded"]
    : status === 499
    ? ["invalid_request_error", "client_closed_request"]
    : status >= 500
    ? ["server_error", null]
    : ["invalid_request_error", null];
  return { error: { message, type, param: modelNotFound ? "model" : null, code } };
}
