/**
 * svc as an MCP server for one user: the tools `list_chats`, `search` and `ask`, and
 * each of the user's documents as a resource (its extracted text, page by
 * page). `svc mcp` serves it over standard input and output. The MCP SDK is
 * an optional package, loaded the first time a server is made.
 * @module
 */
import { z } from "zod";
import type * as McpSdk from "npm:@modelcontextprotocol/sdk@1.32.2/server/mcp.js";
import { quote, SvcError } from "../components/core/errors.ts";
import type { Chat } from "../components/core/chat.ts";
import { LocalDocument } from "../components/core/document.ts";
import { Message, MessageRole } from "../components/core/message.ts";
import type { Source } from "../components/core/source.ts";
import { importPackage } from "../components/packages.ts";
import { coreChat } from "./api/chats.ts";
import { messageRecord } from "./api/records.ts";
import type { ApiDeps } from "./api/env.ts";
import type { StoredDocument } from "./database/mod.ts";
import { VERSION } from "../components/version.ts";
import { logLine } from "./log.ts";

/**
 * What the MCP server reads: the database and the components, as the REST API
 * has them, and where it logs.
 */
export type McpDeps = Pick<
  ApiDeps,
  "database" | "rag" | "document" | "sourceStorages" | "assistants" | "log"
>;

/** Options of {@linkcode createMcpServer}. */
export interface McpServerOptions {
  /** The id of the request it serves, for its log lines. */
  requestId?: string;
}

/** The URI of a document's resource. */
export function documentUri(id: string): string {
  return `svc://documents/${encodeURIComponent(id)}`;
}

/** The most passages `search` gives. */
export const MAX_PASSAGES = 50;

/**
 * The MCP server of one user. Its tools answer a mistake (an unknown chat, a
 * chat not prepared) with a tool error that says what to do.
 */
export async function createMcpServer(
  deps: McpDeps,
  user: string,
  options: McpServerOptions = {},
): Promise<McpSdk.McpServer> {
  const sdk = await importPackage<typeof McpSdk>("@modelcontextprotocol/sdk", "server/mcp.js");
  const server = new sdk.McpServer({ name: "svc", version: VERSION });

  server.registerTool("list_chats", {
    description: "The user's chats: id, name, whether prepared, and their documents",
    inputSchema: {},
  }, async () => {
    const chats = (await deps.database.listChats(user)).map((chat) => ({
      id: chat.id,
      name: chat.metadata.name,
      prepared: chat.prepared,
      documents: chat.metadata.documents.map((d) => ({ id: d.id, name: d.name })),
    }));
    return json({ chats });
  });

  const question = z.string().trim().min(1).describe("the question");
  const chatId = z.string().min(1).describe("the chat, by its id (see list_chats)");
  /** The user's chat, ready to retrieve from. */
  const preparedChat = async (id: string): Promise<Chat> => {
    const record = await deps.database.getChat(user, id);
    if (!record.prepared) {
      throw new SvcError(
        `The chat ${quote(id)} is not prepared: prepare it in the web UI or at ` +
          `POST /chats/${id}/prepare first`,
        { status: 400 },
      );
    }
    return await coreChat(deps, user, record);
  };

  server.registerTool("search", {
    description: "The passages of a chat's documents that best answer a question, best first, " +
      "each with its document, pages and text",
    inputSchema: {
      question,
      chat_id: chatId,
      limit: z.number().int().min(1).max(MAX_PASSAGES).optional()
        .describe(`the most passages to give (at most ${MAX_PASSAGES})`),
    },
  }, async (input: { question: string; chat_id: string; limit?: number }) => {
    const chat = await preparedChat(input.chat_id);
    const sources = await chat.retrieve(input.question);
    const passages = sources.slice(0, input.limit ?? MAX_PASSAGES)
      .map((source, rank) => ({ rank: rank + 1, ...passage(source) }));
    return json({ passages });
  });

  server.registerTool("ask", {
    description: "The chat's answer to a question over its documents, with the passages it is " +
      "based on; the question and the answer are kept in the chat, as in the web UI",
    inputSchema: { question, chat_id: chatId },
  }, async (input: { question: string; chat_id: string }) => {
    const chat = await preparedChat(input.chat_id);
    const asked = messageRecord(new Message(input.question, { role: MessageRole.USER }));
    // Kept whatever becomes of the answer, as the REST API keeps it, and answered by its id:
    // answers asked at once in one chat end in any order.
    await deps.database.addMessages(user, chat.id, [asked]);
    let answer: Message;
    try {
      answer = await chat.answer(input.question);
    } catch (error) {
      // A failed answer is kept too, marked so, so that the question is never left without one.
      const failed = messageRecord(new Message("", { role: MessageRole.ASSISTANT }));
      await keep(() =>
        deps.database.addMessages(user, chat.id, [
          { ...failed, status: "failed", question: asked.id },
        ])
      ).catch(() => {});
      throw error;
    }
    await keep(() =>
      deps.database.addMessages(user, chat.id, [{ ...messageRecord(answer), question: asked.id }])
    );
    return json({ answer: answer.content, sources: answer.sources.map(passage) });
  });

  /** Stores an answer; a failure is logged, with the request's id, and said to the client. */
  const keep = async (store: () => Promise<void>) => {
    try {
      await store();
    } catch (error) {
      deps.log(logLine("error", `Cannot keep the answer: ${(error as Error).message}`, {
        ...(options.requestId ? { request_id: options.requestId } : {}),
        ...(error instanceof SvcError ? { status: error.status } : {}),
      }));
      throw error;
    }
  };

  server.registerResource(
    "document",
    new sdk.ResourceTemplate("svc://documents/{id}", {
      list: async () => ({
        resources: (await userDocuments(deps, user)).map((document) => ({
          uri: documentUri(document.id),
          name: document.name,
          mimeType: "text/plain",
        })),
      }),
    }),
    { description: "A document's extracted text, page by page", mimeType: "text/plain" },
    async (uri: URL, { id }: Record<string, string | string[]>) => {
      const stored = await deps.database.getDocuments(user, [decodeURIComponent(String(id))]);
      const [row] = await deps.database.localFiles?.(stored) ?? stored;
      const document = new (deps.document ?? LocalDocument)(row!);
      const pages = await document.extractPages();
      const text = pages.map((page) =>
        page.number === null ? page.text : `--- page ${page.number} ---\n${page.text}`
      ).join("\n\n");
      return { contents: [{ uri: uri.href, mimeType: "text/plain", text }] };
    },
  );
  return server;
}

/** The documents of the user's chats, each once. */
async function userDocuments(deps: McpDeps, user: string): Promise<StoredDocument[]> {
  const ids = new Set<string>();
  for (const chat of await deps.database.listChats(user)) {
    for (const document of chat.metadata.documents) ids.add(document.id);
  }
  return ids.size === 0 ? [] : await deps.database.getDocuments(user, [...ids]);
}

function passage(
  source: Source,
): { document: { id: string; name: string }; pages: string; text: string } {
  return {
    document: { id: source.document.id, name: source.document.name },
    pages: source.location,
    text: source.content,
  };
}

function json(value: unknown): { content: { type: "text"; text: string }[] } {
  return { content: [{ type: "text", text: JSON.stringify(value, null, 2) }] };
}
