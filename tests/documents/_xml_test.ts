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

Deno.test("`xmlShapeProblem()` refuses nesting deeper than 1,000, fast", () => {
  assert.equal(MAX_XML_DEPTH, 1_000);
  assert.equal(xmlShapeProblem(nested(MAX_XML_DEPTH + 1)), "nests elements more than 1,000 deep");
  // 100,000 unclosed levels: the shape that made xmldom take minutes.
  const start = performance.now();
  assert.equal(xmlShapeProblem(nested(100_000, false)), "nests elements more than 1,000 deep");
  assert.ok(performance.now() - start < 5_000);
});
