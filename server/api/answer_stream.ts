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
import type { ApiEnv } from "./env.ts";
import { errorBody } from "./errors.ts";
import { logLine } from "../log.ts";
import { messageRecord } from "./records.ts";

/** What {@linkcode jsonLinesResponse} streams and stores. */
export interface StreamedAnswer {
  answer: Message;
  chat: Chat;
  user: string;
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
 * Streams an answer, storing it when it is complete; a failure before the
 * first chunk is an ordinary error response, one after it ends the stream
 * with an error line. The question was stored before: nothing is added for an
 * answer that failed or that the client left.
 */
export async function jsonLinesResponse(
  c: Context<ApiEnv>,
  { answer, chat, user, cancel, release }: StreamedAnswer,
): Promise<Response> {
  const { deps, requestId } = c.var;
  const chunks = answer[Symbol.asyncIterator]();
  let first: IteratorResult<string>;
  try {
    first = await chunks.next();
  } catch (error) {
    release();
    throw cancel.signal.aborted ? clientLeft(error) : error;
  }
  // Gone before the first chunk: there is nobody to stream to.
  if (cancel.signal.aborted) {
    release();
    await chunks.return?.();
    throw clientLeft();
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
      // Once the stream is aborted (the client left, or the server stopped),
      // the error is the abort that followed, not a failure to log.
      if (!out.aborted && (!(error instanceof SvcError) || error.status >= 500)) {
        deps.log(
          logLine("error", `The answer stream failed: ${(error as Error).message ?? error}`, {
            request_id: requestId,
            stack: (error as Error).stack ?? String(error),
          }),
        );
      }
      if (!out.aborted) await out.write(`${JSON.stringify(errorBody(message))}\n`);
    } finally {
      release();
      // An assistant that ends quietly when told to stop has not finished its answer.
      if (complete && !cancel.signal.aborted) {
        const reply = { ...head, content: contents.join("") };
        await deps.database.addMessages(user, chat.id, [reply]);
      } else {
        await chunks.return?.();
      }
    }
  });
}
