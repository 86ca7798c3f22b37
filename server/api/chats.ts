/**
 * Chat routes: create (within the user's quota of chats), list (with or
 * without their messages), read, rename, prepare (whole or with progress as
 * JSON Lines), add documents to, answer (whole or as JSON Lines), answer the
 * last question again, and delete chats.
 * @module
 */
import { Hono } from "hono";
import type { Chat } from "../../components/core/chat.ts";
import type { Component } from "../../components/core/component.ts";
import { LocalDocument } from "../../components/core/document.ts";
import { quote, SvcError } from "../../components/core/errors.ts";
import { Message } from "../../components/core/message.ts";
import { SPECIAL_PARAMS } from "../../components/core/params.ts";
import { CACHED_LIST_LENGTH, type ChatRecord } from "../database/mod.ts";
import { DEFAULT_MAX_CHATS_PER_USER } from "../quotas.ts";
import { answerPrompt, JSON_LINES } from "./answer_stream.ts";
import { jsonBody } from "./body.ts";
import { deleteChat, forgetDocument } from "./chat_deletion.ts";
import type { ApiDeps, ApiEnv } from "./env.ts";
import { EncodedTexts } from "./encoded_texts.ts";
import { messageRecord } from "./records.ts";
import { runPrepare } from "./prepare_stream.ts";
import {
  AnswerBody,
  ChatDocuments,
  ChatListQuery,
  ChatMetadata,
  ChatRename,
  RegenerateBody,
} from "./schemas.ts";
import { requestUser } from "./user.ts";

/** The routes of `/chats`, with `/chat/{id}/prepare` and `/chat/{id}/answer` as aliases. */
export function chatRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  // The lists of the users who asked last, as sent, as long as the database keeps them.
  const lists = new EncodedTexts(16, CACHED_LIST_LENGTH);

  app.post("/chats", async (c) => {
    const { deps } = c.var;
    const user = await requestUser(c);
    const metadata = await jsonBody(c, ChatMetadata);
    for (const name of SPECIAL_PARAMS) {
      if (name in metadata.params) {
        throw new SvcError(`The parameter ${quote(name)} is set by svc, not in "params"`, {
          status: 422,
        });
      }
    }
    const record: ChatRecord = {
      id: crypto.randomUUID(),
      metadata,
      messages: [],
      prepared: false,
    };
    await coreChat(deps, user, record);
    await deps.database.addChat(user, record, {
      maxChats: deps.maxChatsPerUser ?? DEFAULT_MAX_CHATS_PER_USER,
    });
    return c.json(record);
  });

  app.get("/chats", async (c) => {
    const { deps } = c.var;
    const user = await requestUser(c);
    const query = ChatListQuery.safeParse(c.req.query());
    if (!query.success) {
      throw new SvcError(
        `The query parameter "messages" must be "true" or "false", not ${
          quote(c.req.query("messages"))
        }`,
        { status: 422 },
      );
    }
    // Without messages, the list stays small however long the conversations are.
    if (query.data.messages === "false") {
      return c.json(await deps.database.listChatSummaries(user));
    }
    const json = await deps.database.listChatsJson(user);
    return c.body(lists.encode(user, json), 200, { "Content-Type": "application/json" });
  });

  app.get("/chats/:id", async (c) => {
    const { deps } = c.var;
    const user = await requestUser(c);
    return c.json(await deps.database.getChat(user, c.req.param("id")));
  });

  app.delete("/chats/:id", async (c) => {
    const { deps } = c.var;
    const user = await requestUser(c);
    const record = await deps.database.getChat(user, c.req.param("id"));
    // Its answers here stop first, rather than write into a chat gone; those of other replicas
    // stop at their next save, which finds their runs gone.
    await deps.answers!.stopChat(user, record.id);
    await deleteChat(deps, user, record);
    return c.json(null);
  });

  app.post("/chats/:id/stop", async (c) => {
    const { deps } = c.var;
    const user = await requestUser(c);
    const id = c.req.param("id");
    // Asked in the database first, for the replicas that write the chat's other answers; this
    // replica's stop at once, and are stored as stopped before the answer goes out.
    const asked = await deps.database.stopAnswers(user, id);
    const here = deps.answers!.running(user, id);
    const stopped = new Set([...asked, ...here.map((run) => run.head?.id ?? run)]);
    await deps.answers!.stopChat(user, id);
    return c.json({ stopped: stopped.size });
  });

  app.patch("/chats/:id", async (c) => {
    const { deps } = c.var;
    const user = await requestUser(c);
    const { name } = await jsonBody(c, ChatRename);
    const id = c.req.param("id");
    await deps.database.renameChat(user, id, name.trim());
    return c.json(await deps.database.getChat(user, id));
  });

  app.post("/chats/:id/documents", async (c) => {
    const { deps } = c.var;
    const user = await requestUser(c);
    const { documents } = await jsonBody(c, ChatDocuments);
    const record = await deps.database.getChat(user, c.req.param("id"));
    const chat = await coreChat(deps, user, record);
    const stored = await deps.database.getDocuments(user, documents.map((d) => d.id));
    // An upload another replica received is read from this replica's copy.
    const rows = await deps.database.localFiles?.(stored) ?? stored;
    const added = rows.map((row) => new (deps.document ?? LocalDocument)(row));
    return await runPrepare(c, async (options) => {
      // Only the new documents are stored; the chat's links to them are kept once they all are.
      await chat.addDocuments(added, options);
      await deps.database.addChatDocuments(user, record.id, documents);
      return await deps.database.getChat(user, record.id);
    });
  });

  app.delete("/chats/:id/documents/:document_id", async (c) => {
    const { deps } = c.var;
    const user = await requestUser(c);
    const record = await deps.database.getChat(user, c.req.param("id"));
    const documentId = c.req.param("document_id");
    await deps.database.removeChatDocument(user, record.id, documentId);
    // The chat's storage forgets the document's passages for the chat; the document stays.
    await forgetDocument(deps, user, record, documentId);
    return c.json(await deps.database.getChat(user, record.id));
  });

  app.post("/chats/:id/regenerate", async (c) => {
    const { deps } = c.var;
    const user = await requestUser(c);
    const { stream } = await jsonBody(c, RegenerateBody);
    const id = c.req.param("id");
    const unprepared = await deps.database.getChat(user, id);
    if (!unprepared.prepared) {
      throw new SvcError("The chat is not prepared: prepare it before answering", { status: 400 });
    }
    // The last question is asked again, after the messages before it; its answers so far stay,
    // as versions of the new one.
    const { id: asked, content: prompt } = await deps.database.lastQuestion(user, id);
    const record = await deps.database.getChat(user, id);
    const last = record.messages.findIndex((message) => message.id === asked);
    const messages = record.messages.slice(0, last);
    const chat = await coreChat(deps, user, { ...record, messages });
    return await answerPrompt(c, { chat, user, prompt, stream, asked }, {
      format: JSON_LINES,
      whole: (reply) => c.json(reply),
    });
  });

  for (const prefix of ["/chats", "/chat"]) {
    app.post(`${prefix}/:id/prepare`, async (c) => {
      const { deps } = c.var;
      const user = await requestUser(c);
      const record = await deps.database.getChat(user, c.req.param("id"));
      const chat = await coreChat(deps, user, record);
      return await runPrepare(c, async (options) => {
        const welcome = messageRecord(await chat.prepare(options));
        await deps.database.setPrepared(user, record.id, welcome);
        return welcome;
      });
    });

    app.post(`${prefix}/:id/answer`, async (c) => {
      const { deps } = c.var;
      const user = await requestUser(c);
      const { prompt, stream } = await jsonBody(c, AnswerBody);
      const record = await deps.database.getChat(user, c.req.param("id"));
      const chat = await coreChat(deps, user, record);
      return await answerPrompt(c, { chat, user, prompt, stream }, {
        format: JSON_LINES,
        whole: (reply) => c.json(reply),
      });
    });
  }

  return app;
}

/**
 * The core chat of a stored one: its documents, its components by display
 * name, its parameters checked.
 *
 * @throws {SvcError} 404 for a document that is not the user's; 422 for an
 * unsupported document, an unknown component or invalid parameters
 */
export async function coreChat(
  deps: Pick<ApiDeps, "database" | "rag" | "document" | "sourceStorages" | "assistants">,
  user: string,
  record: ChatRecord,
): Promise<Chat> {
  const { metadata } = record;
  const stored = await deps.database.getDocuments(user, metadata.documents.map((d) => d.id));
  // An upload another replica received is read from this replica's copy.
  const rows = await deps.database.localFiles?.(stored) ?? stored;
  // Made before the components are looked up: an unsupported document is named first.
  const documents = rows.map((row) => new (deps.document ?? LocalDocument)(row));
  const sourceStorage = byName(deps.sourceStorages, metadata.source_storage, "source storage");
  const assistant = byName(deps.assistants, metadata.assistant, "assistant");
  return deps.rag.chat({
    documents,
    sourceStorage,
    assistant,
    params: { ...metadata.params, user, chat_id: record.id, chat_name: metadata.name },
    prepared: record.prepared,
    // What a follow-up question refers to; their sources are not needed for that.
    messages: record.messages.map((message) =>
      new Message(message.content, {
        role: message.role,
        id: message.id,
        timestamp: new Date(message.timestamp),
      })
    ),
  });
}

function byName<T extends Component>(components: T[], name: string, family: string): T {
  const component = components.find((c) => c.displayName === name);
  if (component) return component;
  const known = components.map((c) => quote(c.displayName)).join(", ");
  throw new SvcError(
    `Unknown component: no ${family} is called ${quote(name)}; known are ${known}`,
    {
      status: 422,
    },
  );
}
