/**
 * Following an answer from another client than the one that asked, by its
 * message's id: a web UI that was reloaded, or opened elsewhere, streams the
 * rest of an answer still being written, on whichever replica it runs.
 * @module
 */
import type { Context } from "hono";
import { stream } from "hono/streaming";
import { type AnswerFormat, following, followRun, JSON_LINES } from "./answer_stream.ts";
import type { ApiEnv } from "./env.ts";
import { logLine } from "../log.ts";
import type * as api from "./schemas.ts";

/**
 * The user's answer as JSON Lines: line 1 is the message as far as it was
 * written, with all its sources; while it is written, each later line is a
 * chunk (`"sources": null`), as `POST /chats/{id}/answer` streams them, and
 * the stream ends as that one does (a stopped answer with a line marked
 * `"status": "stopped"`, a failed one with an error line). An answer that
 * ended already is line 1 alone, as stored. One that another replica writes is
 * read from the database at each save interval.
 */
export async function followAnswer(
  c: Context<ApiEnv>,
  user: string,
  chatId: string,
  messageId: string,
): Promise<Response> {
  const { deps } = c.var;
  const run = deps.answers!.get(messageId);
  if (run && run.chatId === chatId && run.user === user) {
    return followRun(c, run, JSON_LINES, { late: true });
  }
  const message = await deps.database.getMessage(user, chatId, messageId);
  c.header("Content-Type", JSON_LINES.contentType);
  if (message.status !== "streaming") return c.body(`${JSON.stringify(message)}\n`);
  const interval = deps.answerSaveInterval ?? 1000;
  return stream(c, async (out) => {
    const { left, gone, write } = following(c, out);
    const { status: _, versions: __, ...head } = message;
    await write(JSON_LINES.head(head));
    let sent = head.content;
    while (!gone()) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([left, new Promise((resolve) => timer = setTimeout(resolve, interval))]);
      clearTimeout(timer);
      if (gone()) return;
      const now = await deps.database.getMessage(user, chatId, messageId);
      // Saved text only grows; what was sent is never taken back.
      if (now.content.length > sent.length && now.content.startsWith(sent)) {
        await write(JSON_LINES.chunk(
          { ...head, citations: now.citations },
          now.content.slice(sent.length),
        ));
        sent = now.content;
      }
      if (now.status !== "streaming") {
        await write(ending(JSON_LINES, { ...head, citations: now.citations }, now));
        return;
      }
    }
  }, (error) => {
    deps.log(logLine("error", `Following the answer failed: ${(error as Error).message ?? error}`, {
      request_id: c.var.requestId,
    }));
    return Promise.resolve();
  });
}

/** What ends the stream of an answer that ended as `stored` says. */
function ending(format: AnswerFormat, head: api.Message, stored: api.Message): string {
  if (stored.status === "stopped") return format.stopped?.(head) ?? "";
  if (stored.status === "failed") {
    return format.error(stored.error ?? "The answer broke off before it was complete", 502);
  }
  return format.end?.(head) ?? "";
}
