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
import type { Message } from "../../components/core/message.ts";
import type { ApiDeps, ApiEnv } from "./env.ts";
import { errorBody } from "./errors.ts";
import { messageRecord } from "./records.ts";

/** What {@linkcode streamAnswer} streams and stores. */
export interface StreamedAnswer {
  answer: Message;
  question: Message;
  chat: Chat;
  user: string;
  /** Aborts the assistant's work when the client leaves. */
  cancel: AbortController;
}

/**
 * Streams an answer, storing it with its question when it is complete; a
 * failure before the first chunk is an ordinary error response, one after it
 * ends the stream with an error line. Only the question is kept of an answer
 * that failed or that the client left.
 */
export async function streamAnswer(
  c: Context<ApiEnv>,
  { answer, question, chat, user, cancel }: StreamedAnswer,
): Promise<Response> {
  const { deps, requestId } = c.var;
  const chunks = answer[Symbol.asyncIterator]();
  let first: IteratorResult<string>;
  try {
    first = await chunks.next();
  } catch (error) {
    await keepPrompt(deps, user, chat);
    throw error;
  }
  const head = messageRecord(answer, first.done ? "" : first.value);
  c.header("Content-Type", "application/x-ndjson");
  return stream(c, async (out) => {
    out.onAbort(() => cancel.abort());
    const contents = [head.content];
    let complete = first.done === true;
    try {
      await out.write(`${JSON.stringify(head)}\n`);
      while (!complete && !out.aborted) {
        const next = await chunks.next();
        if (next.done) {
          complete = true;
        } else {
          contents.push(next.value);
          await out.write(`${JSON.stringify({ ...head, content: next.value, sources: null })}\n`);
        }
      }
    } catch (error) {
      const message = error instanceof SvcError
        ? error.message
        : `Something went wrong on the server (request ${requestId}); it has been logged`;
      if (!(error instanceof SvcError) || error.status >= 500) {
        deps.log(`${requestId} stream failed: ${(error as Error).stack ?? error}`);
      }
      if (!out.aborted) await out.write(`${JSON.stringify(errorBody(message))}\n`);
    } finally {
      if (complete) {
        const reply = { ...head, content: contents.join("") };
        await deps.database.addMessages(user, chat.id, [messageRecord(question), reply]);
      } else {
        await chunks.return?.();
        await keepPrompt(deps, user, chat);
      }
    }
  });
}

/** Stores the user's prompt of an answer that failed, so nothing the user wrote is lost. */
export async function keepPrompt(deps: ApiDeps, user: string, chat: Chat): Promise<void> {
  const question = chat.messages.findLast((message) => message.role === "user");
  if (question) await deps.database.addMessages(user, chat.id, [messageRecord(question)]);
}
