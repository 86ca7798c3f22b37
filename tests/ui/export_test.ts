import assert from "node:assert/strict";
import { chatJson, chatMarkdown, exportName } from "../../ui/export.ts";

const source = (location: string, content: string, name = "report.pdf") => ({
  id: `s-${location}`,
  document: { id: "d", name },
  location,
  content,
  num_tokens: 5,
});

const chat = {
  id: "c1",
  prepared: true,
  metadata: {
    name: "Bakery",
    source_storage: "LibSQL",
    assistant: "Extractive",
    params: { chunk_size: 500 },
    documents: [{ id: "d", name: "report.pdf" }, { id: "e", name: "slides.pptx" }],
  },
  messages: [
    {
      id: "w",
      role: "system" as const,
      content: "How can I help you with the documents?",
      sources: [],
      citations: [],
      timestamp: "2026-01-02T09:59:00Z",
    },
    {
      id: "q",
      role: "user" as const,
      content: "What is in the loaf?",
      sources: [],
      citations: [],
      timestamp: "2026-01-02T10:00:00Z",
    },
    {
      id: "a",
      role: "assistant" as const,
      content: "Cardamom [1], shown on a slide [2].",
      citations: [1, 2],
      timestamp: "2026-01-02T10:00:05Z",
      sources: [
        source("2", "The secret ingredient\nis cardamom."),
        source("3", "Winter loaf", "slides.pptx"),
      ],
    },
  ],
};

Deno.test("chatMarkdown() writes each message under who wrote it, each answer with its sources quoted", () => {
  assert.equal(
    chatMarkdown(chat),
    [
      "# Bakery",
      "",
      "- Assistant: Extractive",
      "- Source storage: LibSQL",
      "- Documents: report.pdf, slides.pptx",
      "",
      "## svc · 2026-01-02T09:59:00Z",
      "",
      "How can I help you with the documents?",
      "",
      "## You · 2026-01-02T10:00:00Z",
      "",
      "What is in the loaf?",
      "",
      "## Extractive · 2026-01-02T10:00:05Z",
      "",
      "Cardamom [1], shown on a slide [2].",
      "",
      "### Sources",
      "",
      "1. report.pdf, page 2",
      "",
      "   > The secret ingredient",
      "   > is cardamom.",
      "",
      "2. slides.pptx, slide 3",
      "",
      "   > Winter loaf",
      "",
    ].join("\n"),
  );
});

Deno.test("chatJson() gives the chat as the API does, without what only the page keeps", () => {
  const shown = {
    ...chat,
    loaded: true,
    messages: chat.messages.map((message) => ({ ...message, key: `local-${message.id}` })),
  };
  const failed = { ...shown.messages[2]!, state: "failed", errorStatus: 502, errorDetails: "x" };
  const parsed = JSON.parse(chatJson({ ...shown, messages: [...shown.messages, failed] }));
  assert.deepEqual(Object.keys(parsed), ["id", "metadata", "messages", "prepared"]);
  assert.deepEqual(parsed.messages.slice(0, 3), chat.messages);
  assert.deepEqual(parsed.messages[3], chat.messages[2]);
});

Deno.test("exportName() makes a file name of any chat name", () => {
  assert.equal(exportName("Crème brûlée: notes", "md"), "creme-brulee-notes.md");
  assert.equal(exportName("予算 2026", "json"), "予算-2026.json");
  assert.equal(exportName("///", "md"), "chat.md");
  assert.equal(exportName("a".repeat(200), "md").length, 83);
});
