import assert from "node:assert/strict";
import { evaluate } from "../../cli/eval.ts";
import { FIXTURES, tmpLocalRoot } from "../test_utils.ts";

const SET = `${FIXTURES}labelled/`;

/** The documents of the labelled set (tests/fixtures/labelled/README.md). */
const DOCUMENTS = [
  "usrguide.pdf",
  "grfguide.pdf",
  "clsguide.pdf",
  "commander.md",
  "smol-toml.docx",
  "semver.pptx",
].map((name) => `${SET}${name}`);

Deno.test("svc eval at the default settings keeps LibSQL's scores on the labelled set above their floors", async () => {
  await using _root = await tmpLocalRoot();
  const report = await evaluate({ questions: `${SET}questions.json`, documents: DOCUMENTS });
  assert.equal(report.questions, 76);
  assert.equal(report.embedder, "svc/hash-v1-512");
  const [libsql] = report.runs;
  assert.equal(libsql!.name, "LibSQL {}");
  const { hitAt1, hitAt3, hitAt5, mrr, pagesPerSource } = libsql!.scores;
  // Measured: hit@1 0.658, hit@3 0.750, hit@5 0.750, MRR 0.704, 2.23 pages per source, 2 sources
  // per question (chunks of 500 tokens, a budget of 1024).
  assert.ok(hitAt1 >= 0.63, `hit@1 ${hitAt1}`);
  assert.ok(hitAt3 >= 0.72, `hit@3 ${hitAt3}`);
  assert.ok(hitAt5 >= 0.72, `hit@5 ${hitAt5}`);
  assert.ok(mrr >= 0.67, `MRR ${mrr}`);
  assert.ok(pagesPerSource <= 2.5, `pages per source ${pagesPerSource}`);
  // The baseline depends on the page texts alone. Measured: hit@1 0.605, hit@3 0.711, hit@5 0.829,
  // MRR 0.688.
  const baseline = report.baseline.scores;
  assert.ok(baseline.hitAt5 >= 0.79, `baseline hit@5 ${baseline.hitAt5}`);
  assert.ok(baseline.mrr >= 0.65, `baseline MRR ${baseline.mrr}`);
});
