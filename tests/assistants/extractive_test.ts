import assert from "node:assert/strict";
import { Extractive, QUOTING_NOTE } from "../../components/assistants/extractive.ts";
import { pieces } from "../../components/assistants/_sentences.ts";
import { LocalDocument } from "../../components/core/document.ts";
import { Rag } from "../../components/rag.ts";
import type { Source } from "../../components/core/source.ts";
import { LibSQL } from "../../components/source_storages/libsql.ts";
import { parseQuestions } from "../../cli/_eval_questions.ts";
import { answers as isAnswer, pagesOfLocation } from "../../cli/_eval_scores.ts";
import { FIXTURES, tmpLocalRoot } from "../test_utils.ts";
import { slow } from "../_tier.ts";

const pdf = LocalDocument.fromPath("/docs/spices.pdf");
const notes = LocalDocument.fromPath("/docs/notes.md");

function source(content: string, document = pdf, location = "1"): Source {
  return { id: crypto.randomUUID(), document, location, content, numTokens: 50 };
}

async function answer(prompt: string, sources: Source[]): Promise<string[]> {
  const params = {
    user: "ada",
    chat_id: "c",
    chat_name: "Spices",
    signal: new AbortController().signal,
  };
  return await Array.fromAsync(new Extractive().answer(prompt, sources, params));
}

/** The text of an answer's quotes: every chunk but the closing note. */
function quoted(chunks: string[]): string {
  assert.equal(chunks.at(-1), QUOTING_NOTE);
  return chunks.slice(0, -1).join("");
}

Deno.test("Extractive quotes the sentence that answers, marked with its source", async () => {
  const chunks = await answer("When is cardamom harvested?", [
    source("Pepper grows on vines in Kerala. It is dried in the sun for a week."),
    source("Cloves are the buds of a tree. Cardamom is harvested in December, by hand."),
  ]);
  assert.deepEqual(chunks, [
    "Cardamom is harvested in December, by hand. [2]\n\n",
    QUOTING_NOTE,
  ]);
});

Deno.test("Extractive says the documents do not say when no sentence shares the question", async () => {
  const [text] = await answer("Who won the cup final?", [source("Pepper grows on vines.")]);
  assert.match(text!, /^The documents do not say: none of the passages found/);
  const [none] = await answer("Who won the cup final?", []);
  assert.match(none!, /^The documents do not say: no passage of them was found/);
});

Deno.test("Extractive streams its quotes in the order they stand, a paragraph a chunk", async () => {
  const chunks = await answer("How are saffron threads picked and dried?", [
    source("Saffron threads are dried over embers for an hour.\n\nThe harvest lasts a month."),
    source("Saffron threads are picked by hand at dawn. The flowers open in October."),
  ]);
  assert.deepEqual(chunks, [
    "Saffron threads are dried over embers for an hour. [1]\n\n",
    "Saffron threads are picked by hand at dawn. [2]\n\n",
    QUOTING_NOTE,
  ]);
});

Deno.test("Extractive quotes a sentence that two overlapping passages share once", async () => {
  const shared = "Nutmeg trees bear fruit after seven years.";
  const chunks = await answer("How long until nutmeg trees bear fruit?", [
    source(`Mace is the nutmeg's red skin. ${shared}`),
    source(`${shared} A tree lives for decades.`),
  ]);
  assert.equal(chunks.join("").split(shared).length, 2);
});

Deno.test("Extractive quotes the sentence a pointing-back answer needs", async () => {
  const text = quoted(
    await answer("When is cardamom harvested?", [
      source("Pepper grows on vines. Cardamom needs shade. It is harvested in December."),
    ]),
  );
  assert.equal(text, "Cardamom needs shade. [1] It is harvested in December. [1]\n\n");
});

Deno.test("Extractive quotes the lines a sentence ending in a colon introduces", async () => {
  const text = quoted(
    await answer("How do I pass every unknown option to the article class?", [
      source(
        "To pass every unknown option on to the article class, use:\n" +
          "\\DeclareOption*{%\n\\PassOptionsToClass{\\CurrentOption}{article}% }\n" +
          "Then load the class later.",
      ),
    ]),
  );
  assert.equal(
    text,
    "To pass every unknown option on to the article class, use: [1]\n\n" +
      "\\DeclareOption*{% [1]\n\n\\PassOptionsToClass{\\CurrentOption}{article}% } [1]\n\n",
  );
});

Deno.test("Extractive quotes table rows and list items as a list", async () => {
  const text = quoted(
    await answer("Which region grows tomatoes and how many?", [
      source("Crop | Tonnes | Region\nTomatoes | 120 | North\nOnions | 80 | South", notes, ""),
    ]),
  );
  assert.equal(text, "- Crop | Tonnes | Region [1]\n- Tomatoes | 120 | North [1]\n\n");
});

Deno.test("pieces() runs a Markdown paragraph's lines on and keeps code lines apart", () => {
  const found = pieces(
    "Commander reads the\narguments. Then it runs.\n\n```js\nprogram.parse(); // go.\n```\n- An item",
  );
  assert.deepEqual(found.map((piece) => [piece.kind, piece.text]), [
    ["sentence", "Commander reads the arguments."],
    ["sentence", "Then it runs."],
    ["sentence", "program.parse(); // go."],
    ["item", "An item"],
  ]);
});

Deno.test("pieces() does not cut at abbreviations, initials and numbers", () => {
  const found = pieces(
    "See Fig. 3 and e.g. the note by J. Smith on v2.1. Prices rose 3.5% in May.",
  );
  assert.deepEqual(found.map((piece) => piece.text), [
    "See Fig. 3 and e.g. the note by J. Smith on v2.1.",
    "Prices rose 3.5% in May.",
  ]);
});

slow.test("Extractive with LibSQL cites an answering page for most of the labelled set", async () => {
  await using _root = await tmpLocalRoot();
  const folder = `${FIXTURES}labelled/`;
  const questions = parseQuestions(await Deno.readTextFile(`${folder}questions.json`), "q.json");
  const names = [...new Set(questions.map((question) => question.document))];
  const chat = new Rag().chat({
    documents: names.map((name) => `${folder}${name}`),
    sourceStorage: LibSQL,
    assistant: Extractive,
  });
  await chat.prepare();
  let retrieved = 0;
  let cited = 0;
  for (const question of questions) {
    const message = await chat.answer(question.question);
    const answering = (source: Source | undefined) =>
      source !== undefined && isAnswer({
        document: source.document.name,
        pages: pagesOfLocation(source.location),
        content: source.content,
      }, question);
    if (!message.sources.some(answering)) continue;
    retrieved++;
    const markers = [...message.content.matchAll(/\[(\d+)\]/g)].map((match) => Number(match[1]));
    if (markers.some((marker) => answering(message.sources[marker - 1]))) cited++;
  }
  assert.ok(retrieved >= 50, `${retrieved} questions had an answering source`);
  assert.ok(cited >= 0.8 * retrieved, `${cited} of ${retrieved} answers cited one`);
});
