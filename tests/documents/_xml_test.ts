import assert from "node:assert/strict";
import { MAX_XML_DEPTH, xmlShape } from "../../components/documents/_xml.ts";

const nested = (depth: number, closed = true) =>
  "<a>".repeat(depth) + "text" + (closed ? "</a>".repeat(depth) : "");

Deno.test("`xmlShape()` accepts well-formed XML with declarations, comments and CDATA", () => {
  const xml = '<?xml version="1.0"?><!DOCTYPE w [<!ENTITY x "y">]><w:document a="1>2">' +
    '<!-- <unclosed> --><w:p><w:br/><w:t xml:space="preserve"><![CDATA[<b>]]></w:t></w:p>' +
    '<w:p href="x/"></w:p></w:document>';
  assert.deepEqual(xmlShape(xml), { elements: 5 });
  assert.deepEqual(xmlShape(nested(MAX_XML_DEPTH)), { elements: MAX_XML_DEPTH });
});

Deno.test("`xmlShape()` finds unclosed, stray and crossed tags", () => {
  for (const xml of [nested(3, false), "<a></b>", "</a>", "<a><b></a></b>"]) {
    assert.equal(xmlShape(xml).problem, "is not well-formed XML", xml);
  }
});

Deno.test("`xmlShape()` refuses nesting deeper than 1,000 without reading further", () => {
  assert.equal(MAX_XML_DEPTH, 1_000);
  const tooDeep = "nests elements more than 1,000 deep";
  assert.equal(xmlShape(nested(MAX_XML_DEPTH + 1)).problem, tooDeep);
  // 100,000 unclosed levels: the shape that made xmldom take minutes. Counted, not timed: it
  // looks for as many tags as in a document one level too deep.
  const reference = matchesSought(() => xmlShape(nested(MAX_XML_DEPTH + 1, false)));
  let problem: string | undefined;
  const sought = matchesSought(() => problem = xmlShape(nested(100_000, false)).problem);
  assert.equal(problem, tooDeep);
  assert.ok(reference > MAX_XML_DEPTH, `it looks for tags by regular expression (${reference})`);
  assert.equal(sought, reference);
});

Deno.test("`xmlShape()` counts elements and named ones, and stops at the first past its limit", () => {
  const paragraphs = (count: number) =>
    `<w:body>${"<w:p><w:r><w:t>a</w:t></w:r><w:r/></w:p>".repeat(count)}</w:body>`;
  const limits = { elements: 50, named: { p: [5, "paragraphs"], r: [8, "runs"] } } as const;
  assert.deepEqual(xmlShape(paragraphs(4), limits), { elements: 17 });
  // The fifth paragraph's first run is the ninth: refused there, the rest not read.
  assert.deepEqual(xmlShape(paragraphs(1_000), limits), {
    problem: "has more than 8 runs",
    elements: 1 + 4 * 4 + 2,
  });
  assert.deepEqual(xmlShape(paragraphs(1_000), { elements: 10 }), {
    problem: "has more than 10 elements",
    elements: 11,
  });
  // Counted by local name, whatever the prefix, and self-closing elements too.
  assert.equal(
    xmlShape("<x:p/><p/><a:p></a:p>", { named: { p: [2, "paragraphs"] } }).problem,
    "has more than 2 paragraphs",
  );
  const reference = matchesSought(() => xmlShape(paragraphs(3), limits));
  const sought = matchesSought(() => xmlShape(paragraphs(100_000), limits));
  assert.ok(
    sought <= reference + 4 * 2,
    `${sought} tags sought, ${reference} for three paragraphs`,
  );
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
