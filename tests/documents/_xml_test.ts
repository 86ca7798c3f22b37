import assert from "node:assert/strict";
import { MAX_XML_DEPTH, xmlShapeProblem } from "../../components/documents/_xml.ts";

const nested = (depth: number, closed = true) =>
  "<a>".repeat(depth) + "text" + (closed ? "</a>".repeat(depth) : "");

Deno.test("`xmlShapeProblem()` accepts well-formed XML with declarations, comments and CDATA", () => {
  const xml = '<?xml version="1.0"?><!DOCTYPE w [<!ENTITY x "y">]><w:document a="1>2">' +
    '<!-- <unclosed> --><w:p><w:br/><w:t xml:space="preserve"><![CDATA[<b>]]></w:t></w:p>' +
    '<w:p href="x/"></w:p></w:document>';
  assert.equal(xmlShapeProblem(xml), undefined);
  assert.equal(xmlShapeProblem(nested(MAX_XML_DEPTH)), undefined);
});

Deno.test("`xmlShapeProblem()` finds unclosed, stray and crossed tags", () => {
  for (const xml of [nested(3, false), "<a></b>", "</a>", "<a><b></a></b>"]) {
    assert.equal(xmlShapeProblem(xml), "is not well-formed XML", xml);
  }
});

Deno.test("`xmlShapeProblem()` refuses nesting deeper than 1,000 without reading further", () => {
  assert.equal(MAX_XML_DEPTH, 1_000);
  const tooDeep = "nests elements more than 1,000 deep";
  assert.equal(xmlShapeProblem(nested(MAX_XML_DEPTH + 1)), tooDeep);
  // 100,000 unclosed levels: the shape that made xmldom take minutes. Counted, not timed: it
  // looks for as many tags as in a document one level too deep.
  const reference = matchesSought(() => xmlShapeProblem(nested(MAX_XML_DEPTH + 1, false)));
  let problem: string | undefined;
  const sought = matchesSought(() => problem = xmlShapeProblem(nested(100_000, false)));
  assert.equal(problem, tooDeep);
  assert.ok(reference > MAX_XML_DEPTH, `it looks for tags by regular expression (${reference})`);
  assert.equal(sought, reference);
});

/** How many times regular expressions look for their next match while `run` runs. */
function matchesSought(run: () => void): number {
  const exec = RegExp.prototype.exec;
  let count = 0;
  RegExp.prototype.exec = function (this: RegExp, text: string) {
    count++;
    return exec.call(this, text);
  };
  try {
    run();
  } finally {
    RegExp.prototype.exec = exec;
  }
  return count;
}
