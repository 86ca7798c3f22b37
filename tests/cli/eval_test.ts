import assert from "node:assert/strict";
import { run } from "../../cli/mod.ts";
import { FIXTURES, tmpDir, tmpLocalRoot, writeFile } from "../test_utils.ts";
import { capture } from "./_io.ts";
import { slow } from "../_tier.ts";

const DOCUMENTS = [`${FIXTURES}report.pdf`, `${FIXTURES}notes.docx`];

const QUESTIONS = [
  {
    question: "What is the secret ingredient of the winter loaf?",
    document: "report.pdf",
    pages: [2],
  },
  { question: "On which day is the bakery closed?", document: "report.pdf", pages: [3] },
  { question: "Who owns the cover design?", document: "notes.docx", text: "Cover design | Ana" },
  // Words of no document: the baseline finds no page at all.
  { question: "Xylophones or quartz?", document: "report.pdf", pages: [2] },
];

/** Runs `svc eval` on questions written to a file, with the given arguments after them. */
async function evalRun(questions: unknown, ...args: string[]) {
  await using dir = await tmpDir();
  const file = await writeFile(
    dir.path,
    "questions.json",
    typeof questions === "string" ? questions : JSON.stringify(questions, null, 2),
  );
  const io = capture();
  const code = await run(["eval", file, "--documents", ...DOCUMENTS, ...args], io);
  return { code, ...io };
}

slow.test("svc eval scores each setting side by side with the page BM25 baseline, as JSON", async () => {
  await using _root = await tmpLocalRoot();
  const { code, stdout, stderr } = await evalRun(
    QUESTIONS,
    "--params",
    '{"chunk_size": 8, "chunk_overlap": 4}',
    "--params",
    "{}",
    "--json",
  );
  assert.equal(code, 0, stderr);
  const report = JSON.parse(stdout);
  assert.equal(report.questions, 4);
  assert.deepEqual(report.documents, ["report.pdf", "notes.docx"]);
  assert.equal(report.embedder, "svc/hash-v1-512");
  assert.deepEqual(report.runs.map((run: { name: string }) => run.name), [
    'LibSQL {"chunk_size":8,"chunk_overlap":4}',
    "LibSQL {}",
  ]);
  assert.deepEqual(report.runs[1].params, {});
  assert.equal(report.runs[0].source_storage, "svc.source_storages.LibSQL");
  // Small chunks lie on one page each and find both pages of the report first; the default ones
  // are as long as the whole report, one source for all its pages.
  assert.equal(report.runs[0].hit_at_1, 0.75);
  assert.ok(report.runs[0].pages_per_source < 2, String(report.runs[0].pages_per_source));
  assert.equal(report.runs[1].pages_per_source, 3);
  // The baseline ranks whole pages: the right one first for each question it can answer.
  const baseline = report.baseline;
  assert.equal(baseline.name, "page BM25 (baseline)");
  assert.deepEqual(
    [baseline.hit_at_1, baseline.hit_at_3, baseline.hit_at_5, baseline.mrr],
    [0.75, 0.75, 0.75, 0.75],
  );
  assert.equal(baseline.pages_per_source, 1);
  assert.deepEqual(baseline.misses, [{
    index: 3,
    question: "Xylophones or quartz?",
    document: "report.pdf",
    pages: [2],
    found: [],
  }]);
  assert.equal(baseline.sources_per_question, 3);
  // Each question's rank, and the scores over each document's questions.
  assert.deepEqual(baseline.ranks, [1, 1, 1, 0]);
  assert.deepEqual(baseline.by_document, [
    {
      document: "report.pdf",
      questions: 3,
      hit_at_1: 2 / 3,
      hit_at_3: 2 / 3,
      hit_at_5: 2 / 3,
      mrr: 2 / 3,
    },
    { document: "notes.docx", questions: 1, hit_at_1: 1, hit_at_3: 1, hit_at_5: 1, mrr: 1 },
  ]);
  assert.equal(report.runs[0].ranks.length, 4);
  assert.match(stderr, /Storing 2 documents with LibSQL \{\}/);
});

Deno.test("svc eval prints a table of the metrics and each miss with what was found", async () => {
  await using _root = await tmpLocalRoot();
  const { code, stdout } = await evalRun(QUESTIONS.slice(2));
  assert.equal(code, 0);
  const lines = stdout.split("\n");
  assert.equal(
    lines[0],
    "2 questions over 2 documents (report.pdf, notes.docx); embedder svc/hash-v1-512",
  );
  assert.match(lines[2]!, /^\s+hit@1\s+hit@3\s+hit@5\s+MRR\s+pages\/source\s+sources$/);
  assert.match(lines[3]!, /^LibSQL \{\}(\s+[01]\.\d\d){4}\s+3\.00\s+2\.0$/);
  assert.match(lines[4]!, /^page BM25 \(baseline\)(\s+0\.50){4}\s+1\.00\s+2\.0$/);
  // MRR and hit@3 over each document's questions: the baseline finds the table row of the DOCX
  // and none of the report's pages for words it does not hold.
  assert.equal(lines[6], "By document, MRR / hit@3:");
  assert.match(lines[8]!, /^\s+questions\s+LibSQL \{\}\s+page BM25 \(baseline\)$/);
  assert.match(lines[9]!, /^notes\.docx\s+1\s+[01]\.\d\d \/ [01]\.\d\d\s+1\.00 \/ 1\.00$/);
  assert.match(lines[10]!, /^report\.pdf\s+1\s+[01]\.\d\d \/ [01]\.\d\d\s+0\.00 \/ 0\.00$/);
  assert.ok(
    stdout.endsWith(
      "Misses of page BM25 (baseline) (no right passage among the first 5):\n" +
        "  [1] Xylophones or quartz? (expected report.pdf p. 2) found nothing\n",
    ),
    stdout,
  );
});

Deno.test("svc eval passes over a storage that cannot run here and keeps the others' scores", async () => {
  await using _root = await tmpLocalRoot();
  // Chroma needs its server, which nothing starts here.
  const { code, stdout, stderr } = await evalRun(
    QUESTIONS,
    "--source-storage",
    "Chroma",
    "--source-storage",
    "LibSQL",
    "--json",
  );
  assert.equal(code, 0, stderr);
  const report = JSON.parse(stdout);
  assert.deepEqual(report.runs.map((run: { name: string }) => run.name), ["LibSQL {}"]);
  assert.equal(report.skipped.length, 1);
  assert.equal(report.skipped[0].source_storage, "Chroma");
  assert.match(report.skipped[0].reason, /^The component "Chroma" is not available: it needs /);
  assert.match(stderr, /^Skipping Chroma: The component "Chroma" is not available/m);
});

Deno.test("svc eval names the line and column of a file that is not JSON", async () => {
  const { code, stderr } = await evalRun('[\n  {"question": "Who?",}\n]');
  assert.equal(code, 1);
  assert.match(
    stderr,
    /^error: Cannot read the questions ".*questions\.json": invalid JSON at line 2, column 23: unexpected "\}"\n$/,
  );
  const cut = await evalRun('[{"question": "Who?"');
  assert.match(cut.stderr, /invalid JSON at line 1, column 21: the text ends too early/);
});

Deno.test("svc eval names the JSON path of every entry that is not a labelled question", async () => {
  const { code, stderr } = await evalRun([
    { question: "Who?", document: "report.pdf", pages: [0] },
    { question: "", document: "report.pdf", text: "x" },
    { question: "Why?", document: "report.pdf" },
    { question: "How?", document: "report.pdf", pages: [1], answer: "x" },
  ]);
  assert.equal(code, 1);
  assert.match(stderr, /^error: Cannot read the questions ".*": each must be /);
  assert.match(stderr, /\n- \[0\]\.pages\[0\]: /);
  assert.match(stderr, /\n- \[1\]\.question: /);
  assert.match(stderr, /\n- \[2\]: give either "pages" or "text"/);
  assert.match(stderr, /\n- \[3\]: .*"answer"/);
  const empty = await evalRun([]);
  assert.match(empty.stderr, /- \(the whole file\): expected at least one question/);
});

Deno.test("svc eval refuses questions whose answer is not where they say", async () => {
  const { code, stderr } = await evalRun([
    { question: "Who?", document: "report.docx", pages: [1] },
    { question: "Who?", document: "report.pdf", pages: [4] },
    { question: "Who?", document: "notes.docx", pages: [1] },
    { question: "Who?", document: "notes.docx", text: "Cover design | Ben" },
  ]);
  assert.equal(code, 1);
  assert.equal(
    stderr.replace(/"[^"]*questions\.json"/, '"questions.json"'),
    'error: The questions "questions.json" do not match the documents:\n' +
      '- [0].document: "report.docx" is not one of "report.pdf", "notes.docx"\n' +
      '- [1].pages: "report.pdf" has no page 4 (it has 3)\n' +
      '- [2].pages: "notes.docx" has no pages: give "text" instead\n' +
      '- [3].text: "Cover design | Ben" is not in "notes.docx"\n',
  );
});

Deno.test("svc eval says what is wrong with its options and files", async () => {
  const missing = capture();
  assert.equal(await run(["eval", "/nonexistent/q.json", "--documents", ...DOCUMENTS], missing), 1);
  assert.equal(
    missing.stderr,
    'error: Cannot read the questions "/nonexistent/q.json": the file does not exist\n',
  );
  const params = await evalRun(QUESTIONS, "--params", "[1]");
  assert.equal(params.stderr, 'error: Option "--params" needs a JSON object, not "[1]"\n');
  const unknown = await evalRun(QUESTIONS, "--params", '{"chunk_sise": 100}');
  assert.match(unknown.stderr, /chunk_sise/);
  const storage = await evalRun(QUESTIONS, "--source-storage", "Nope");
  assert.match(storage.stderr, /^error: .*"svc\.source_storages\.Nope"/);
  const noDocuments = capture();
  assert.equal(await run(["eval", "q.json"], noDocuments), 1);
  assert.match(noDocuments.stderr, /--documents/);
});
