import assert from "node:assert/strict";
import { fraction, stepText, withStep } from "../../ui/prepare_progress.ts";

const document = { id: "d1", name: "report.pdf" };

Deno.test("fraction() moves forward with each step, and a failed document is done", () => {
  const stages = [undefined, "reading", "parsed", "indexed"] as const;
  const fractions = stages.map((stage) => fraction(stage && { document, stage }));
  assert.deepEqual(fractions, [0, 0.1, 0.66, 1]);
  assert.equal(fraction({ document, stage: "failed", error: "no" }), 1);
});

Deno.test("stepText() says each step in words, with the pages and passages", () => {
  assert.equal(stepText(undefined), "Waiting…");
  assert.equal(stepText({ document, stage: "reading" }), "Reading…");
  assert.equal(stepText({ document, stage: "parsed", pages: 3 }), "3 pages read · indexing…");
  assert.equal(stepText({ document, stage: "indexed", chunks: 12 }), "Ready · 12 passages");
  assert.equal(stepText({ document, stage: "indexed" }), "Ready · indexed before");
  assert.equal(
    stepText({ document, stage: "failed", error: 'Cannot read "report.pdf": it is encrypted' }),
    'Cannot be prepared: Cannot read "report.pdf": it is encrypted',
  );
});

Deno.test("withStep() keeps the last step of each document", () => {
  const other = { id: "d2", name: "notes.md" };
  let steps = withStep({}, { document, stage: "reading" });
  steps = withStep(steps, { document: other, stage: "reading" });
  steps = withStep(steps, { document, stage: "parsed", pages: 2 });
  assert.deepEqual(Object.keys(steps), ["d1", "d2"]);
  assert.equal(steps.d1!.stage, "parsed");
  assert.equal(steps.d2!.stage, "reading");
});
