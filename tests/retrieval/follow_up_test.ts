import assert from "node:assert/strict";
import { SvcDemoAssistant } from "../../components/assistants/demo.ts";
import { LocalDocument } from "../../components/core/document.ts";
import { Message } from "../../components/core/message.ts";
import { Rag } from "../../components/mod.ts";
import { LibSQL } from "../../components/source_storages/libsql.ts";
import {
  FOLLOW_UP_TURNS,
  followUpText,
  readsAsFollowUp,
} from "../../components/retrieval/follow_up.ts";
import { tmpLocalRoot } from "../test_utils.ts";
import { slow } from "../_tier.ts";

Deno.test("followUpText() searches a follow-up with the user's last questions, not the answers", () => {
  const history = [
    new Message("How can I help you with the documents?", { role: "system" }),
    new Message("How do I copy a command?", { role: "user" }),
    new Message("With \\NewCommandCopy [1].", { role: "assistant" }),
    new Message("And show it?", { role: "user" }),
    new Message("With \\ShowCommand [2].", { role: "assistant" }),
  ];
  assert.equal(FOLLOW_UP_TURNS, 2);
  assert.equal(
    followUpText("And how do I undo that?", history),
    "How do I copy a command?\nAnd show it?\nAnd how do I undo that?",
  );
  assert.equal(
    followUpText("Why?", [...history, new Message("Third?", { role: "user" })]),
    "And show it?\nThird?\nWhy?",
  );
});

Deno.test("followUpText() leaves a first question as it is", () => {
  assert.equal(followUpText("What is svc?", undefined), undefined);
  assert.equal(
    followUpText("What is svc?", [new Message("Welcome", { role: "system" })]),
    undefined,
  );
});

Deno.test("followUpText() leaves a question that names its own subject as it is, after others", () => {
  const history = [new Message("How do I copy a command?", { role: "user" })];
  for (
    const prompt of ["How can text be mirrored left to right?", "How do I make footnotes ragged?"]
  ) {
    assert.equal(followUpText(prompt, history), undefined, prompt);
  }
  assert.equal(
    followUpText("Does that also work for environments?", history),
    "How do I copy a command?\nDoes that also work for environments?",
  );
});

Deno.test("readsAsFollowUp() takes few words of its own, or words that point back or go on, as a next turn", () => {
  const followUps = [
    "Why?",
    "And how do I undo that?",
    "Can I change its colour?", // two words of its own
    "Does that also work for DOCX files?", // three, and "that", "also" point back
    "And what about tables in DOCX files?", // four, after "and"
  ];
  const questions = [
    "How do I make an option mandatory?", // three, none pointing back
    "What happens if I pass a value that is not a number?", // four: "that" does not count
    "Can it format sizes larger than JavaScript's maximum safe integer?",
  ];
  for (const prompt of followUps) assert.equal(readsAsFollowUp(prompt), true, prompt);
  for (const prompt of questions) assert.equal(readsAsFollowUp(prompt), false, prompt);
});

slow.test("A chat asked the labelled set's questions one after another finds for each what it finds alone", async () => {
  await using _root = await tmpLocalRoot();
  const folder = new URL("../fixtures/labelled/", import.meta.url).pathname;
  const questions: { question: string; document: string }[] = JSON.parse(
    await Deno.readTextFile(`${folder}questions.json`),
  );
  const names = [...new Set(questions.map((entry) => entry.document))];
  const documents = names.map((name) => LocalDocument.fromPath(`${folder}${name}`));
  const chat = () =>
    new Rag().chat({ documents, sourceStorage: LibSQL, assistant: SvcDemoAssistant });
  const alone = chat();
  const asked = chat();
  await alone.prepare();
  await asked.prepare();
  for (const { question } of questions) {
    const found = (await alone.retrieve(question)).map((source) => source.id);
    const answered = await asked.answer(question);
    assert.deepEqual(answered.sources.map((source) => source.id), found, question);
  }
  await alone.delete();
  await asked.delete();
});
