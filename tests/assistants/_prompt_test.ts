import assert from "node:assert/strict";
import {
  chatMessages,
  HISTORY_TOKENS,
  INSTRUCTION,
  promptParts,
} from "../../components/assistants/_prompt.ts";
import { LocalDocument } from "../../components/core/document.ts";
import { Message } from "../../components/core/message.ts";
import type { Source } from "../../components/core/source.ts";
import { SOURCES } from "./_providers.ts";

const slides = LocalDocument.fromPath("/nowhere/deck.pptx");
const source = (location: string, content = "A passage."): Source => ({
  id: location,
  document: slides,
  location,
  content,
  numTokens: 2,
});

Deno.test("promptParts() numbers the sources with their document and location, then asks", async () => {
  const { system, user } = await promptParts("What grew?", SOURCES);
  assert.equal(system, INSTRUCTION);
  assert.equal(
    user,
    [
      "Sources:",
      "",
      "[1] report.pdf, pages 1-3:",
      "Revenue grew by 42 %.",
      "",
      "[2] notes.md:",
      "Costs stayed flat.",
      "",
      "Question: What grew?",
    ].join("\n"),
  );
});

Deno.test("promptParts() says page for one page and keeps a location in words", async () => {
  const { user } = await promptParts("?", [source("7"), source("1-3, 5, 7"), source("slide 4")]);
  assert.match(user, /\[1\] deck\.pptx, page 7:\n/);
  assert.match(user, /\[2\] deck\.pptx, pages 1-3, 5, 7:\n/);
  assert.match(user, /\[3\] deck\.pptx, slide 4:\n/);
});

Deno.test("promptParts() trims a passage's surrounding blank lines", async () => {
  const { user } = await promptParts("?", [source("", "\n\n  Indented text.\n\n")]);
  assert.match(user, /\[1\] deck\.pptx:\nIndented text\.\n\nQuestion: \?$/);
});

Deno.test("promptParts() says when no source was found", async () => {
  assert.equal(
    (await promptParts("Why?", [])).user,
    "Sources: none were found for this question.\n\nQuestion: Why?",
  );
});

Deno.test("the instruction asks to answer only from the sources, cite them, and admit gaps", () => {
  assert.match(INSTRUCTION, /only from these sources/);
  assert.match(INSTRUCTION, /\[1\] or \[2\]\[3\]/);
  assert.match(INSTRUCTION, /do not hold the answer, say so/);
});

Deno.test("chatMessages() gives the instruction as the system's message, then the user's", async () => {
  const parts = await promptParts("What grew?", SOURCES);
  assert.deepEqual(chatMessages(parts), [
    { role: "system", content: INSTRUCTION },
    { role: "user", content: parts.user },
  ]);
});

Deno.test("promptParts() carries the latest turns of the conversation within HISTORY_TOKENS", async () => {
  const history = [
    new Message("How can I help you with the documents?", { role: "system" }),
    new Message(`Old question ${"padding ".repeat(HISTORY_TOKENS)}`, { role: "user" }),
    new Message("How do I copy a command?", { role: "user" }),
    new Message("With \\NewCommandCopy [1].", { role: "assistant" }),
  ];
  const { user } = await promptParts("And how do I undo that?", [source("2")], history);
  assert.equal(
    user,
    "Conversation so far:\n\nUser: How do I copy a command?\n\nAssistant: With \\NewCommandCopy [1]." +
      "\n\nSources:\n\n[1] deck.pptx, page 2:\nA passage.\n\nQuestion: And how do I undo that?",
  );
  assert.match(INSTRUCTION, /earlier turns of the conversation/);
  assert.doesNotMatch((await promptParts("Why?", [], [])).user, /Conversation/);
});
