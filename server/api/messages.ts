/**
 * The routes of one message of a chat: read it with its versions, follow its
 * answer while it is written, ask its question again in other words (a new
 * branch; the old one kept), read the branch of a question's version, and
 * rate an answer.
 * @module
 */
import { Hono } from "hono";
import { SvcError } from "../../components/core/errors.ts";
import { Message, MessageRole } from "../../components/core/message.ts";
import { followAnswer } from "./answer_follow.ts";
import { answerPrompt, JSON_LINES } from "./answer_stream.ts";
import { jsonBody } from "./body.ts";
import { coreChat } from "./chats.ts";
import type { ApiEnv } from "./env.ts";
import { messageRecord } from "./records.ts";
import { AnswerBody, FeedbackBody } from "./schemas.ts";
import { requestUser } from "./user.ts";

/** The routes of `/chats/{id}/messages/{message_id}`. */
export function messageRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/chats/:id/messages/:message_id", async (c) => {
    const user = await requestUser(c);
    const { id, message_id: messageId } = c.req.param();
    return c.json(await c.var.deps.database.getMessage(user, id, messageId));
  });

  app.get("/chats/:id/messages/:message_id/stream", async (c) => {
    const user = await requestUser(c);
    const { id, message_id: messageId } = c.req.param();
    return await followAnswer(c, user, id, messageId);
  });

  app.get("/chats/:id/messages/:message_id/branch", async (c) => {
    const user = await requestUser(c);
    const { id, message_id: messageId } = c.req.param();
    return c.json(await c.var.deps.database.getBranch(user, id, messageId));
  });

  app.post("/chats/:id/messages/:message_id/edit", async (c) => {
    const { deps } = c.var;
    const user = await requestUser(c);
    const { id, message_id: messageId } = c.req.param();
    const { prompt, stream } = await jsonBody(c, AnswerBody);
    const record = await deps.database.getChat(user, id);
    if (!record.prepared) {
      throw new SvcError("The chat is not prepared: prepare it before answering", { status: 400 });
    }
    // Asked after the messages before the question it replaces; a chat whose components are
    // gone refuses it before anything is stored.
    const before = Math.max(0, record.messages.findIndex((message) => message.id === messageId));
    const chat = await coreChat(deps, user, {
      ...record,
      messages: record.messages.slice(0, before),
    });
    const question = messageRecord(new Message(prompt, { role: MessageRole.USER }));
    // Refused (404 for a message the chat lacks, 400 for one that is no question of the
    // conversation) before anything is asked.
    await deps.database.editQuestion(user, id, messageId, question);
    return await answerPrompt(c, { chat, user, prompt, stream, asked: question.id }, {
      format: JSON_LINES,
      whole: (reply) => c.json(reply),
    });
  });

  app.post("/chats/:id/messages/:message_id/feedback", async (c) => {
    const { deps } = c.var;
    const user = await requestUser(c);
    const { id, message_id: messageId } = c.req.param();
    const { rating, note } = await jsonBody(c, FeedbackBody);
    const trimmed = note?.trim();
    const feedback = rating === null ? null : {
      rating,
      ...(trimmed ? { note: trimmed } : {}),
      timestamp: new Date().toISOString(),
    };
    await deps.database.setFeedback(user, id, messageId, feedback);
    return c.json(await deps.database.getMessage(user, id, messageId));
  });

  return app;
}
