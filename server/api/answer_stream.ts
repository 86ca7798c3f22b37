/**
 * Answering over HTTP. A streamed answer as JSON Lines: line 1 is the whole
 * message with its first chunk and all sources; every later line repeats its
 * id, role and timestamp with `"sources": null` and the next chunk. The
 * answer itself runs on its own (`answer_runs.ts`): a stream follows it.
 * @module
 */
import type { Context } from "hono";
import { stream } from "hono/streaming";
import type { StreamingApi } from "hono/utils/stream";
import type { Chat } from "../../components/core/chat.ts";
import { SvcError } from "../../components/core/errors.ts";
import { type AnswerRun, publicMessage } from "./answer_runs.ts";
import { Citations } from "./citations.ts";
import type { ApiEnv } from "./env.ts";
import { errorBody } from "./errors.ts";
import { logLine } from "../log.ts";
import type * as api from "./schemas.ts";

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
  /** What ends an answer that was stopped (`POST /chats/{id}/stop`), if anything. */
  stopped?(message: api.Message): string;
  /** What ends an answer that failed after its first part. */
  error(message: string, status: number): string;
}

/** Answers as JSON Lines of messages: `POST /chats/{id}/answer`. */
export const JSON_LINES: AnswerFormat = {
  contentType: "application/x-ndjson",
  head: (message) => `${JSON.stringify(message)}\n`,
  chunk: (message, content) => `${JSON.stringify({ ...message, content, sources: null })}\n`,
  // A last line that adds no text and says so: a client that joins the lines keeps its answer.
  stopped: (message) =>
    `${JSON.stringify({ ...message, content: "", sources: null, status: "stopped" })}\n`,
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
 * answer runs on its own (see `AnswerRuns`), its question stored with it (a
 * chat not prepared refuses it unread), and goes on to its end whatever the
 * client does. A whole answer is given once it is stored; a streamed one is
 * followed from its start (see {@linkcode followRun}). An answer that fails
 * before its first chunk is an ordinary error response.
 */
export async function answerPrompt(
  c: Context<ApiEnv>,
  { chat, user, prompt, stream, asked }: Question,
  { format, whole }: AnswerResponses,
): Promise<Response> {
  const { deps, requestId } = c.var;
  const run = deps.answers!.start({ chat, user, prompt, asked, requestId });
  await run.started;
  if (stream) return followRun(c, run, format);
  await run.done;
  const outcome = run.outcome!;
  if (outcome.status === "complete") return whole(run.record());
  throw outcome.error;
}

/** Options of {@linkcode followRun}. */
export interface FollowOptions {
  /**
   * Whether the follower comes while the answer runs: its first part then
   * holds the text so far. Otherwise the answer is streamed from its start,
   * chunk by chunk, as 0.2.1 streams it.
   * @default {false}
   */
  late?: boolean;
}

/**
 * Streams a running answer in `format`: its first part with all sources, then
 * each chunk as it comes, each part with the sources cited up to it. A
 * complete answer is stored before the stream ends (before the format's end,
 * if it has one); one that was stopped ends with the format's `stopped`, one
 * that failed with its error. A client that leaves stops following it, not
 * the answer.
 */
export function followRun(
  c: Context<ApiEnv>,
  run: AnswerRun,
  format: AnswerFormat,
  options: FollowOptions = {},
): Response {
  const { deps, requestId } = c.var;
  const head = run.head!;
  c.header("Content-Type", format.contentType);
  return stream(c, async (out) => {
    const { left, gone, write } = following(c, out);
    // A marker may be cut between chunks, so the citations are read across them.
    const citations = new Citations(head.sources.length);
    let next = options.late ? run.chunks.length : Math.min(1, run.chunks.length);
    const first = run.chunks.slice(0, next).join("");
    citations.read(first);
    await write(format.head({ ...head, content: first, citations: citations.cited }));
    while (!gone()) {
      while (next < run.chunks.length && !gone()) {
        const chunk = run.chunks[next++]!;
        citations.read(chunk);
        await write(format.chunk({ ...head, citations: citations.cited }, chunk));
      }
      if (run.ended && next >= run.chunks.length) break;
      await Promise.race([run.changed(), left]);
    }
    if (gone()) return;
    // The end is stored before the stream says it: a client that read to it knows it was kept.
    await Promise.race([run.done, left]);
    if (gone()) return;
    const outcome = run.outcome!;
    const last = { ...head, citations: citations.cited };
    if (outcome.status === "complete") {
      if (format.end) await write(format.end(last));
    } else if (outcome.status === "stopped") {
      if (format.stopped) await write(format.stopped(last));
    } else {
      const status = outcome.error instanceof SvcError ? outcome.error.status : 500;
      await write(format.error(publicMessage(outcome.error, requestId), status));
    }
  }, (error) => {
    // Anything that escaped the above is logged as every line is, rather than printed as it is.
    deps.log(logLine("error", `The answer stream failed: ${(error as Error).message ?? error}`, {
      request_id: requestId,
      stack: (error as Error).stack ?? String(error),
    }));
    return Promise.resolve();
  });
}

/** How a stream follows an answer while its client is there. */
export interface Following {
  /** Settles once the client left. */
  left: Promise<void>;
  /** Whether the client left. */
  gone(): boolean;
  /** Writes a part, or gives up on it once the client left. */
  write(part: string): Promise<void>;
}

/**
 * Watches for the client of a stream to leave: by the stream being cancelled,
 * or by the request's signal, whichever comes first, since a write to a
 * client that left may wait for ever without either.
 */
export function following(c: Context<ApiEnv>, out: StreamingApi): Following {
  let away = false;
  const left = new Promise<void>((resolve) => {
    const leave = () => {
      away = true;
      resolve();
    };
    out.onAbort(leave);
    const { signal } = c.req.raw;
    if (signal.aborted) leave();
    else signal.addEventListener("abort", leave, { once: true });
  });
  return {
    left,
    gone: () => away || out.aborted,
    write: async (part) => {
      await Promise.race([out.write(part), left]);
    },
  };
}
