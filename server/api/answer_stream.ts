/**
 * A streamed answer as JSON Lines: line 1 is the whole message with its first
 * chunk and all sources; every later line repeats its id, role and timestamp
 * with `"sources": null` and the next chunk.
 * @module
 */
import type { Context } from "hono";
import { stream } from "hono/streaming";
import type { Chat } from "../../components/core/chat.ts";
import { SvcError } from "../../components/core/errors.ts";
import { Message, MessageRole } from "../../components/core/message.ts";
import { chatTitle } from "./chat_title.ts";
import { Citations } from "./citations.ts";
import type { ApiEnv } from "./env.ts";
import { errorBody } from "./errors.ts";
import { logLine } from "../log.ts";
import { messageRecord } from "./records.ts";
import type * as api from "./schemas.ts";

/** What {@linkcode streamAnswer} streams and stores. */
export interface StreamedAnswer {
  answer: Message;
  chat: Chat;
  user: string;
  /** The id of the stored question it answers. */
  question: string;
  /** Aborts the assistant's work when the client leaves. */
  cancel: AbortController;
  /** Ends the watch of {@linkcode cancelWhenLeft}; called once the stream has ended. */
  release: () => void;
}

/**
 * Aborts `cancel` as soon as the client of `request` goes away, from the
 * moment this is called: before the first chunk as well as during the
 * stream, so that the provider's call ends at once rather than at its
 * timeout. Returns the function that stops watching.
 */
export function cancelWhenLeft(request: Request, cancel: AbortController): () => void {
  const { signal } = request;
  const abort = () => cancel.abort(clientLeft());
  if (signal.aborted) {
    abort();
    return () => {};
  }
  signal.addEventListener("abort", abort, { once: true });
  return () => signal.removeEventListener("abort", abort);
}

/**
 * The error of an answer whose client went away: nobody reads it, but the
 * request's log line says what happened (499, as proxies log it) rather than
 * logging a failure.
 */
export function clientLeft(cause?: unknown): SvcError {
  return new SvcError("The client went away before the answer was complete", {
    status: 499,
    cause,
  });
}

/**
 * How a streamed answer is written: its content type and the text of each
 * part. Each function returns what is written as it is.
 */
export interface AnswerFormat {
  contentType: string;
  /** The first part: the message with its first chunk and all sources. */
  head(message: api.Message): string;
  /** A later chunk of the message. */
  chunk(message: api.Message, content: string): string;
  /** What ends a complete answer, if anything. */
  end?(message: api.Message): string;
  /** What ends an answer that failed after its first part. */
  error(message: string, status: number): string;
}

/** Answers as JSON Lines of messages: `POST /chats/{id}/answer`. */
export const JSON_LINES: AnswerFormat = {
  contentType: "application/x-ndjson",
  head: (message) => `${JSON.stringify(message)}\n`,
  chunk: (message, content) => `${JSON.stringify({ ...message, content, sources: null })}\n`,
  error: (message) => `${JSON.stringify(errorBody(message))}\n`,
};

/** A prompt to answer in a stored chat, and how. */
export interface Question {
  chat: Chat;
  user: string;
  prompt: string;
  /** Answer as the assistant writes, in `format`. */
  stream: boolean;
  /**
   * The id of the stored question whose answer is written again: it is not stored again.
   * @default {a new question, stored first}
   */
  asked?: string;
}

/** How {@linkcode answerPrompt} responds. */
export interface AnswerResponses {
  /** The format of a streamed answer. */
  format: AnswerFormat;
  /** The response of a whole answer, once it is stored. */
  whole(reply: api.Message): Response;
}

/**
 * Answers a prompt in a stored chat, as every answering route does: the
 * question is stored first, in its own write, whatever becomes of the answer
 * (a chat not prepared refuses it unread); a whole answer is read and stored,
 * a streamed one is stored once complete (see {@linkcode streamAnswer}), and
 * its work ends as soon as its client leaves. An answer that fails or is left
 * is stored too, as far as it was written, with its status: a question is
 * never left without its answer.
 */
export async function answerPrompt(
  c: Context<ApiEnv>,
  { chat, user, prompt, stream, asked }: Question,
  { format, whole }: AnswerResponses,
): Promise<Response> {
  const { deps } = c.var;
  // Aborted as soon as a streaming client leaves, retrieval and the wait
  // for the first chunk included; a whole answer is finished and kept regardless.
  const cancel = new AbortController();
  const release = stream ? cancelWhenLeft(c.req.raw, cancel) : () => {};
  const question = messageRecord(new Message(prompt, { role: MessageRole.USER }));
  // Each answer names its question: answers written at once in one chat end in any order.
  const turn = { chat, user, question: asked ?? question.id };
  let streaming = false;
  try {
    let answer: Message | undefined;
    let failure: unknown;
    try {
      answer = await chat.answer(prompt, { stream: true, signal: cancel.signal });
    } catch (error) {
      failure = error;
    }
    // Stored before the answer is written, in its own write, so that it is kept whatever
    // becomes of the answer, a crash included; a chat not prepared refused it unread.
    if (chat.prepared && asked === undefined) await storeQuestion(deps, { chat, user, question });
    if (answer === undefined) {
      // The question is followed by an answer that says it ended, never left alone.
      if (chat.prepared) {
        const unanswered = messageRecord(new Message("", { role: MessageRole.ASSISTANT }));
        await keepUnfinished(c, turn, { reply: unanswered, stopped: cancel.signal.aborted });
      }
      throw cancel.signal.aborted ? clientLeft(failure) : failure;
    }
    if (stream) {
      streaming = true;
      return await streamAnswer(c, { ...turn, answer, cancel, release }, format);
    }
    try {
      await answer.read();
    } catch (error) {
      await keepUnfinished(c, turn, { reply: messageRecord(answer, ""), stopped: false });
      throw error;
    }
    const reply = messageRecord(answer);
    await deps.database.addMessages(user, chat.id, [{ ...reply, question: turn.question }]);
    return whole(reply);
  } finally {
    // From here on the stream releases it.
    if (!streaming) release();
  }
}

/**
 * Stores a question; a chat without a name yet takes its title from its first question.
 */
async function storeQuestion(
  deps: ApiEnv["Variables"]["deps"],
  { chat, user, question }: { chat: Chat; user: string; question: api.Message },
): Promise<void> {
  await deps.database.addMessages(user, chat.id, [question]);
  if (chat.name === "") await deps.database.titleChat(user, chat.id, chatTitle(question.content));
}

/** A chat's question, by its id, that an answer answers. */
interface Turn {
  chat: Chat;
  user: string;
  question: string;
}

/**
 * Stores an answer that did not end complete, as far as it was written, marked
 * `stopped` (its client left) or `failed`. A failure to store it is logged: the
 * answer's own failure is what its client hears of.
 */
async function keepUnfinished(
  c: Context<ApiEnv>,
  { chat, user, question }: Turn,
  { reply, stopped }: { reply: api.Message; stopped: boolean },
): Promise<void> {
  const { deps, requestId } = c.var;
  const status = stopped ? "stopped" : "failed";
  try {
    await deps.database.addMessages(user, chat.id, [{ ...reply, status, question }]);
  } catch (error) {
    deps.log(logLine("error", `Cannot keep the ${status} answer: ${(error as Error).message}`, {
      request_id: requestId,
    }));
  }
}

/**
 * Streams an answer in `format`. A failure before the first chunk is an
 * ordinary error response; one after it ends the stream with the format's
 * error. A complete answer is stored before the stream ends (before the
 * format's end, if it has one), so that a client that read it to its end
 * knows it was kept: when storing fails, the stream ends with the format's
 * error instead. An answer that failed, that the client left, or that could
 * not be stored is stored as far as it was written, marked as such, when the
 * database lets it. Its citations are read as the chunks come, so that each
 * part carries the sources cited up to it.
 */
export async function streamAnswer(
  c: Context<ApiEnv>,
  { answer, chat, user, question, cancel, release }: StreamedAnswer,
  format: AnswerFormat,
): Promise<Response> {
  const { deps, requestId } = c.var;
  const turn = { chat, user, question };
  const chunks = answer[Symbol.asyncIterator]();
  let first: IteratorResult<string>;
  try {
    first = await chunks.next();
  } catch (error) {
    release();
    const stopped = cancel.signal.aborted;
    await keepUnfinished(c, turn, { reply: messageRecord(answer, ""), stopped });
    throw stopped ? clientLeft(error) : error;
  }
  // Gone before the first chunk: there is nobody to stream to.
  if (cancel.signal.aborted) {
    release();
    await chunks.return?.();
    // Nothing reached the client: the answer it stopped is empty.
    await keepUnfinished(c, turn, { reply: messageRecord(answer, ""), stopped: true });
    throw clientLeft();
  }
  const head = messageRecord(answer, first.done ? "" : first.value);
  // A marker may be cut between chunks, so the citations are read across them.
  const citations = new Citations(head.sources.length);
  citations.read(head.content);
  head.citations = citations.cited;
  c.header("Content-Type", format.contentType);
  return stream(c, async (out) => {
    out.onAbort(() => cancel.abort());
    const contents = [head.content];
    const reply = () => ({ ...head, content: contents.join(""), citations: citations.cited });
    let complete = first.done === true;
    let stored = false;
    try {
      await out.write(format.head(head));
      while (!complete && !out.aborted) {
        const next = await chunks.next();
        if (next.done) {
          complete = true;
        } else {
          contents.push(next.value);
          citations.read(next.value);
          await out.write(format.chunk({ ...head, citations: citations.cited }, next.value));
        }
      }
      // An assistant that ends quietly when told to stop has not finished its answer.
      if (complete && !cancel.signal.aborted) {
        await deps.database.addMessages(user, chat.id, [{ ...reply(), question }]);
        stored = true;
        if (format.end && !out.aborted) await out.write(format.end(head));
      }
    } catch (error) {
      const message = error instanceof SvcError
        ? error.message
        : `Something went wrong on the server (request ${requestId}); it has been logged`;
      // Once the stream is aborted (the client left, or the server stopped),
      // the error is the abort that followed, not a failure to log.
      if (!out.aborted && (!(error instanceof SvcError) || error.status >= 500)) {
        deps.log(
          logLine("error", `The answer stream failed: ${(error as Error).message ?? error}`, {
            request_id: requestId,
            ...(error instanceof SvcError
              ? { status: error.status }
              : { stack: (error as Error).stack ?? String(error) }),
          }),
        );
      }
      const status = error instanceof SvcError ? error.status : 500;
      if (!out.aborted) await out.write(format.error(message, status)).catch(() => {});
    } finally {
      release();
      if (!stored) {
        await chunks.return?.();
        const stopped = cancel.signal.aborted || out.aborted;
        await keepUnfinished(c, turn, { reply: reply(), stopped });
      }
    }
  }, (error) => {
    // Anything that escaped the above (an assistant that fails as it is told to stop) is
    // logged as every line is, rather than printed as it is.
    deps.log(logLine("error", `The answer stream failed: ${(error as Error).message ?? error}`, {
      request_id: requestId,
      stack: (error as Error).stack ?? String(error),
    }));
    return Promise.resolve();
  });
}
