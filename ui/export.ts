/**
 * A chat as a file to keep: Markdown to read (each answer with its sources,
 * their passages quoted) and JSON to process (the chat as the API gives it).
 * @module
 */
import type { Chat, Message } from "./api_types.ts";
import { chatName } from "./conversation.ts";
import { formatLocation } from "./location.ts";

/** A chat as the export takes it: the API's fields, and perhaps the page's own. */
export type ExportedChat = Omit<Chat, "messages"> & { messages: readonly Message[] };

/** A passage as a Markdown quote: each of its lines quoted. */
function quoted(text: string): string {
  return text.trim().split("\n").map((line) => line.trim() ? `> ${line}` : ">").join("\n");
}

/**
 * The chat as Markdown: its name, components and documents, then each
 * message under who wrote it and when, each answer followed by its sources.
 *
 * @example
 * ```ts
 * import { chatMarkdown } from "./export.ts";
 * const chat = {
 *   id: "c", prepared: true,
 *   metadata: { name: "Bakery", source_storage: "LibSQL", assistant: "Extractive", params: {},
 *     documents: [{ id: "d", name: "report.pdf" }] },
 *   messages: [
 *     { id: "q", role: "user" as const, content: "What is in the loaf?", sources: [], citations: [],
 *       timestamp: "2026-01-02T10:00:00Z" },
 *     { id: "a", role: "assistant" as const, content: "Cardamom [1].", citations: [1],
 *       timestamp: "2026-01-02T10:00:05Z", sources: [{ id: "s", document: { id: "d", name: "report.pdf" },
 *       location: "2", content: "The secret ingredient is cardamom.", num_tokens: 6 }] },
 *   ],
 * };
 * const text = chatMarkdown(chat);
 * console.assert(text.startsWith("# Bakery\n"));
 * console.assert(text.includes("1. report.pdf, page 2\n\n   > The secret ingredient is cardamom."));
 * ```
 */
export function chatMarkdown(chat: ExportedChat): string {
  const { metadata } = chat;
  const lines = [
    `# ${chatName(chat)}`,
    "",
    `- Assistant: ${metadata.assistant}`,
    `- Source storage: ${metadata.source_storage}`,
    `- Documents: ${metadata.documents.map((document) => document.name).join(", ") || "none"}`,
  ];
  for (const message of chat.messages) {
    const who = message.role === "user"
      ? "You"
      : message.role === "assistant"
      ? metadata.assistant
      : "svc";
    lines.push("", `## ${who} · ${message.timestamp}`, "", message.content.trim() || "(empty)");
    const sources = message.sources ?? [];
    if (message.role !== "assistant" || sources.length === 0) continue;
    lines.push("", "### Sources", "");
    sources.forEach((source, index) => {
      const where = formatLocation(source.location, source.document.name);
      const passage = quoted(source.content).replaceAll("\n", "\n   ");
      lines.push(
        `${index + 1}. ${source.document.name}${where ? `, ${where}` : ""}`,
        "",
        `   ${passage}`,
        "",
      );
    });
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

/** The chat as JSON, as `GET /chats/{id}` gives it, without what only the page keeps. */
export function chatJson(chat: ExportedChat): string {
  const messages = chat.messages.map((message) => {
    const {
      key: _key,
      state: _state,
      errorStatus: _status,
      errorDetails: _details,
      ...kept
    } = message as Message & Record<string, unknown>;
    return kept;
  });
  return `${
    JSON.stringify(
      {
        id: chat.id,
        metadata: chat.metadata,
        messages,
        prepared: chat.prepared,
      },
      null,
      2,
    )
  }\n`;
}

/**
 * A file name for the chat's export: its name in lower case, letters,
 * digits and dashes, and the suffix.
 *
 * @example
 * ```ts
 * import { exportName } from "./export.ts";
 * console.assert(exportName("Budget 2026: Q3 / Q4", "md") === "budget-2026-q3-q4.md");
 * console.assert(exportName("   ", "json") === "chat.json");
 * ```
 */
export function exportName(name: string, suffix: string): string {
  const slug = name.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "").slice(0, 80);
  return `${slug || "chat"}.${suffix}`;
}
