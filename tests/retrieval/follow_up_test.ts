import assert from "node:assert/strict";
import { SvcDemoAssistant } from "../../components/assistants/demo.ts";
import { LocalDocument } from "../../components/core/document.ts";
import { Message } from "../../components/core/message.ts";
import { Rag } from "../../components/mod.ts";
import { LibSQL } from "../../components/source_storages/libsql.ts";
import { OpenAI } from "../../components/assistants/openai.ts";
import type { Assistant, ComponentRef } from "../../components/core/component.ts";
import {
  FOLLOW_UP_TURNS,
  followUpSearch,
  followUpText,
  readsAsFollowUp,
} from "../../components/retrieval/follow_up.ts";
import { configured, openaiFake } from "../assistants/_providers.ts";
import { FakeServer, SilentServer, within } from "../assistants/_fake_server.ts";
import { tmpLocalRoot, writeFile } from "../test_utils.ts";
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

Deno.test("followUpSearch() asks only for a follow-up, and keeps the rule when the answer is blank or fails", async () => {
  const history = [new Message("How do I freeze bread?", { role: "user" })];
  const asked: string[] = [];
  const ask = (reply: () => Promise<string | undefined>) => (prompt: string) => {
    asked.push(prompt);
    return reply();
  };
  const rule = "How do I freeze bread?\nAnd how do I thaw it?";
  const standalone = ask(() => Promise.resolve("  How do I thaw frozen bread?  "));
  assert.equal(
    await followUpSearch("And how do I thaw it?", history, standalone),
    "How do I thaw frozen bread?",
  );
  assert.equal(
    await followUpSearch("How long does rye dough rise?", history, standalone),
    "How long does rye dough rise?",
  );
  assert.equal(
    await followUpSearch("And how do I thaw it?", [], standalone),
    "And how do I thaw it?",
  );
  assert.deepEqual(asked, ["And how do I thaw it?"]);
  assert.equal(
    await followUpSearch("And how do I thaw it?", history, ask(() => Promise.resolve(" "))),
    rule,
  );
  assert.equal(
    await followUpSearch(
      "And how do I thaw it?",
      history,
      ask(() => Promise.reject(new Error("502"))),
    ),
    rule,
  );
  assert.equal(await followUpSearch("And how do I thaw it?", history), rule);
  const unchanged = ask(() => Promise.resolve("and how do  I thaw it?"));
  assert.equal(await followUpSearch("And how do I thaw it?", history, unchanged), rule);
});

/** A kitchen note whose sections each answer one question. */
const KITCHEN = [
  "# Freezing bread",
  "",
  "Bread keeps for three months in the freezer. Wrap each loaf tightly in foil before you freeze it.",
  "",
  "# Thawing",
  "",
  "A frozen loaf thaws on the kitchen counter in about three hours, still in its foil.",
  "",
  "# Toasting",
  "",
  "Slices go straight from the freezer into the toaster.",
  "",
].join("\n");

const EARLIER = [
  new Message("How do I freeze bread?", { role: "user" }),
  new Message("Wrap the loaf in foil and freeze it [1].", { role: "assistant" }),
];
const FOLLOW_UP = "And how long does that take?";

/** The first source a chat with `assistant` retrieves for {@linkcode FOLLOW_UP} after {@linkcode EARLIER}. */
async function firstSource(
  assistant: ComponentRef<Assistant>,
): Promise<{ id: string; content: string }> {
  await using dir = await tmpLocalRoot();
  const path = await writeFile(dir.path, "kitchen.md", KITCHEN);
  const chat = new Rag().chat({
    documents: [path],
    sourceStorage: LibSQL,
    assistant,
    params: { chunk_size: 40, chunk_overlap: 0, num_tokens: 40 },
    messages: EARLIER,
  });
  await chat.prepare();
  const [source] = await chat.retrieve(FOLLOW_UP);
  await chat.delete();
  return { id: source!.id, content: source!.content };
}

Deno.test("A chat whose assistant is a model searches a follow-up as the model words it to stand alone", async () => {
  const rule = await firstSource(SvcDemoAssistant);
  assert.match(rule.content, /freeze it/);
  const texts = ["How long does a frozen loaf take", " to thaw on the counter?"];
  await using server = new FakeServer([(s) => openaiFake.answer(s, texts)]);
  const found = await firstSource(configured(OpenAI, openaiFake.env(server.url)));
  assert.match(found.content, /thaws on the kitchen counter/);
  assert.equal(server.requests.length, 1);
  const request = server.last.body as { messages: { content: string }[] };
  assert.match(request.messages[1]!.content, /User: How do I freeze bread\?/);
  assert.match(request.messages[1]!.content, /Follow-up question: And how long does that take\?$/);
});

Deno.test("A chat searches a follow-up by the rule when the model fails or does not answer in time", async () => {
  const rule = await firstSource(SvcDemoAssistant);
  {
    await using server = new FakeServer([() => openaiFake.error(500, "The server had an error")]);
    assert.deepEqual(await firstSource(configured(OpenAI, openaiFake.env(server.url))), rule);
    assert.equal(server.requests.length, 1, "the question is asked once, not tried again");
  }
  await using silent = new SilentServer();
  const silentModel = configured(OpenAI, {
    ...openaiFake.env(silent.url),
    SVC_FOLLOW_UP_TIMEOUT: "0.5",
  });
  assert.deepEqual(await firstSource(silentModel), rule);
  await within(silent.hungUp, 10_000, "hanging up on the model");
});
