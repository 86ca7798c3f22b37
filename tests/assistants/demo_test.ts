import assert from "node:assert/strict";
import { SvcDemoAssistant } from "../../components/assistants/demo.ts";
import { LocalDocument } from "../../components/core/document.ts";
import type { Source } from "../../components/core/source.ts";

const document = LocalDocument.fromPath("/nowhere/report.pdf");
const source = (n: number): Source => ({
  id: `${n}`,
  document,
  location: `page ${n}`,
  content: `Passage ${n}.`,
  numTokens: 2,
});

Deno.test("SvcDemoAssistant mirrors the prompt and sources in one chunk", () => {
  const chunks = [
    ...new SvcDemoAssistant().answer("What is it?\nTell me.", [source(1), source(2)]),
  ];
  assert.equal(chunks.length, 1);
  const [text] = chunks;
  assert.match(text!, /Your prompt was:\n\n> What is it\?\n> Tell me\.\n/);
  assert.match(text!, /- report\.pdf, page 1: Passage 1\.\n- report\.pdf, page 2: Passage 2\.$/);
});

Deno.test("SvcDemoAssistant lists three sources and counts the rest", () => {
  const [text] = [...new SvcDemoAssistant().answer("?", [1, 2, 3, 4, 5].map(source))];
  assert.match(text!, /page 3: Passage 3\.\n\[\.\.\. and 2 more\]$/);
  assert.doesNotMatch(text!, /Passage 4/);
});

Deno.test("SvcDemoAssistant shows a Markdown table when asked about markdown", () => {
  const [text] = [...new SvcDemoAssistant().answer("Show me MarkDown", [])];
  assert.match(
    text!,
    /^\| Text \| Integer \| Decimal \| Emoji \|\n\|:-----\|:-------:\|--------:\|-------\|/,
  );
});
