/**
 * Preparing a chat's documents, whole or as JSON Lines of progress: with
 * `Accept: application/x-ndjson`, each step of each document (read, parsed,
 * indexed, failed) is a line `{"progress": {...}}` as the source storage
 * reports it, and the last line is the welcome message (or an error). The
 * plain call answers with the welcome message alone, as it always has. Either
 * way, the work stops when the client leaves, and the chat stays unprepared
 * with nothing of its documents kept.
 * @module
 */
import type { Context } from "hono";
import { stream } from "hono/streaming";
import type { PrepareOptions } from "../../components/core/chat.ts";
import type { Document } from "../../components/core/document.ts";
import { SvcError } from "../../components/core/errors.ts";
import type { PrepareProgress } from "../../components/core/progress.ts";
import { logLine } from "../log.ts";
import type { ApiEnv } from "./env.ts";
import { errorBody } from "./errors.ts";
import type * as api from "./schemas.ts";

/**
 * Aborts `cancel` as soon as the client of `request` goes away, from the
 * moment this is called: before the first step as well as during the
 * stream, so that the storage's work ends at once. Returns the function that
 * stops watching.
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
 * The error of work whose client went away: nobody reads it, but the
 * request's log line says what happened (499, as proxies log it) rather than
 * logging a failure.
 */
export function clientLeft(cause?: unknown): SvcError {
  return new SvcError("The client went away before the work was complete", {
    status: 499,
    cause,
  });
}

/** The media type of a progress stream. */
export const PROGRESS_LINES = "application/x-ndjson";

/** Whether the request asks for progress lines rather than one JSON body. */
export function wantsProgress(c: Context<ApiEnv>): boolean {
  return (c.req.header("Accept") ?? "").toLowerCase().includes(PROGRESS_LINES);
}

/** A step as the API shows it: the document as `{id, name}`, the counts so far. */
export function progressRecord(progress: PrepareProgress): api.PrepareProgress {
  const { document, stage, pages, chunks, error } = progress;
  return {
    document: documentRecord(document),
    stage,
    ...(pages === undefined ? {} : { pages }),
    ...(chunks === undefined ? {} : { chunks }),
    ...(error === undefined ? {} : { error: errorBody(error).error.message }),
  };
}

function documentRecord(document: Document): api.Document {
  return { id: document.id, name: document.name };
}

/** The work to run with progress: it prepares and stores, and gives what the last line holds. */
export type PrepareWork<T> = (options: Required<PrepareOptions>) => Promise<T>;

/**
 * The work, with the pages of each document it parsed recorded once it
 * ended, for `GET /documents`; a failure to record them is logged.
 */
function countingPages<T>(c: Context<ApiEnv>, work: PrepareWork<T>): PrepareWork<T> {
  return async (options) => {
    const pages: Record<string, number> = {};
    try {
      return await work({
        ...options,
        onProgress(progress) {
          if (progress.stage === "parsed" && progress.pages !== undefined) {
            pages[progress.document.id] = progress.pages;
          }
          options.onProgress(progress);
        },
      });
    } finally {
      if (Object.keys(pages).length > 0) {
        const { deps, requestId, user } = c.var;
        await deps.database.recordPages(user!, pages).catch((error) => {
          deps.log(logLine("warn", `Cannot record the pages of the documents: ${error.message}`, {
            request_id: requestId,
          }));
        });
      }
    }
  };
}

/**
 * Runs `work` (a chat's `prepare()` or `addDocuments()`, and the write that
 * keeps its outcome) for a request: as one JSON body, or as progress lines
 * with the result last when the request asks for them. A failure before the
 * first step is an ordinary error response; one after it is the last line,
 * `{"error": {"message"}}`. The work's signal is aborted when the client leaves.
 */
export async function runPrepare<T>(
  c: Context<ApiEnv>,
  given: PrepareWork<T>,
): Promise<Response> {
  const work = countingPages(c, given);
  const cancel = new AbortController();
  const release = cancelWhenLeft(c.req.raw, cancel);
  if (!wantsProgress(c)) {
    try {
      return c.json(await work({ signal: cancel.signal, onProgress: () => {} }) as object);
    } catch (error) {
      throw cancel.signal.aborted ? clientLeft(error) : error;
    } finally {
      release();
    }
  }

  const lines: string[] = [];
  let wake: (() => void) | undefined;
  const push = (line: unknown) => {
    lines.push(`${JSON.stringify(line)}\n`);
    wake?.();
  };
  let outcome: { value: T } | { error: unknown } | undefined;
  const working = work({
    signal: cancel.signal,
    onProgress: (progress) => push({ progress: progressRecord(progress) }),
  }).then((value) => outcome = { value }, (error) => outcome = { error });
  void working.finally(() => wake?.());

  // Nothing is streamed until there is a step to show: an early refusal keeps its status.
  await Promise.race([working, new Promise<void>((resolve) => wake = resolve)]);
  if (outcome && "error" in outcome && lines.length === 0) {
    release();
    throw cancel.signal.aborted ? clientLeft(outcome.error) : outcome.error;
  }

  const { deps, requestId } = c.var;
  c.header("Content-Type", PROGRESS_LINES);
  return stream(c, async (out) => {
    out.onAbort(() => cancel.abort(clientLeft()));
    try {
      while (!out.aborted) {
        while (lines.length > 0 && !out.aborted) await out.write(lines.shift()!);
        if (outcome) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
          if (lines.length > 0 || outcome) resolve();
        });
      }
      if (out.aborted || !outcome) return;
      if ("value" in outcome) {
        await out.write(`${JSON.stringify(outcome.value)}\n`);
        return;
      }
      const error = outcome.error;
      if (!(error instanceof SvcError) || error.status >= 500) {
        deps.log(logLine("error", `Preparing failed: ${(error as Error).message ?? error}`, {
          request_id: requestId,
          stack: (error as Error).stack ?? String(error),
        }));
      }
      const message = error instanceof SvcError
        ? error.message
        : `Something went wrong on the server (request ${requestId}); it has been logged`;
      await out.write(`${JSON.stringify(errorBody(message))}\n`);
    } finally {
      release();
      // A client that left does not wait for the work, but the work ends before the chat is used.
      await working;
    }
  });
}
