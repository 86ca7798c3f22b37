import assert from "node:assert/strict";
import { parseQuestions } from "../../cli/_eval_questions.ts";
import { run } from "../../cli/mod.ts";
import { openDatabase } from "../../server/database/mod.ts";
import { tmpDir } from "../test_utils.ts";
import { capture } from "./_io.ts";

/** A configuration whose API database is a file in the folder. */
async function config(folder: string): Promise<string> {
  const path = `${folder}/svc.toml`;
  await Deno.writeTextFile(path, `local_root = "root"\n`);
  return path;
}

const guide = { id: "d1", name: "guide.pdf" };
const notes = { id: "d2", name: "notes.md" };
const source = (id: string, document: typeof guide, location: string, content = "Passage") => ({
  id,
  document,
  location,
  content,
  num_tokens: 3,
});

/** Rates two answers good (one citing two documents) and one bad, in one user's chat. */
async function rateAnswers(folder: string): Promise<void> {
  const db = await openDatabase(`sqlite:///${folder}/root/svc.db`, { localRoot: `${folder}/root` });
  try {
    for (const document of [guide, notes]) {
      await db.addDocument("ada", { ...document, metadata: {} });
    }
    await db.addChat("ada", {
      id: "c1",
      metadata: {
        name: "Guide",
        source_storage: "LibSQL",
        assistant: "Extractive",
        params: {},
        documents: [guide, notes],
      },
      messages: [],
      prepared: true,
    });
    const ask = async (id: string, question: string, answer: Record<string, unknown>) => {
      const timestamp = new Date().toISOString();
      await db.addMessages("ada", "c1", [
        { id: `q-${id}`, content: question, role: "user", sources: [], timestamp, citations: [] },
        {
          id,
          content: "An answer [1]",
          role: "assistant",
          timestamp,
          citations: [],
          sources: [],
          ...answer,
          question: `q-${id}`,
        },
      ]);
    };
    // Cites its second source only: the pages are those of what it cites.
    await ask("a1", "Which pages say where?", {
      sources: [source("s1", guide, "9"), source("s2", guide, "4-6")],
      citations: [2],
    });
    // Cites nothing: all its sources label it, a document without pages by its text.
    await ask("a2", "What do the notes and the guide say?", {
      sources: [
        source("s3", notes, "§ Options", "The --force flag\nreplaces the file."),
        source("s4", guide, "2"),
      ],
    });
    await ask("a3", "Rated bad?", { sources: [source("s5", guide, "7")] });
    const at = "2026-11-26T00:00:00.000Z";
    await db.setFeedback("ada", "c1", "a1", { rating: "good", timestamp: at });
    await db.setFeedback("ada", "c1", "a2", { rating: "good", note: "right", timestamp: at });
    await db.setFeedback("ada", "c1", "a3", { rating: "bad", timestamp: at });
  } finally {
    await db.close();
  }
}

Deno.test("svc export-labelled writes the questions of answers rated good, with the pages they cite, as svc eval reads them", async () => {
  await using dir = await tmpDir();
  const path = await config(dir.path);
  await rateAnswers(dir.path);

  const io = capture();
  assert.equal(await run(["export-labelled", "-c", path], io, { env: {} }), 0, io.stderr);
  assert.deepEqual(parseQuestions(io.stdout, "stdout"), [
    { question: "Which pages say where?", document: "guide.pdf", pages: [4, 5, 6] },
    {
      question: "What do the notes and the guide say?",
      document: "notes.md",
      text: "The --force flag replaces the file.",
    },
    { question: "What do the notes and the guide say?", document: "guide.pdf", pages: [2] },
  ]);

  const output = `${dir.path}/questions.json`;
  const written = capture();
  assert.equal(await run(["export-labelled", "-c", path, "-o", output], written, { env: {} }), 0);
  assert.equal(await Deno.readTextFile(output), io.stdout);
  assert.match(written.stderr, /Wrote 3 labelled questions over 2 documents/);
  const again = capture();
  assert.equal(await run(["export-labelled", "-c", path, "-o", output], again, { env: {} }), 1);
  assert.match(again.stderr, /exists: choose another, or add --force/);

  const nobody = capture();
  const code = await run(["export-labelled", "-c", path, "--user", "bob"], nobody, { env: {} });
  assert.equal(code, 1);
  assert.equal(
    nobody.stderr,
    'error: No answer of "bob" is rated good with a source to label it by: rate answers in ' +
      "the web UI (or POST /chats/{id}/messages/{message_id}/feedback) first\n",
  );
});
