import assert from "node:assert/strict";
import {
  attribute,
  decodeEntities,
  MAX_XML_DEPTH,
  xmlShape,
  type XmlToken,
  xmlTokens,
} from "../../components/documents/_xml.ts";

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
  // reads as much as of a document one level too deep.
  const reference = { steps: 0 };
  xmlShape(nested(MAX_XML_DEPTH + 1, false), {}, reference);
  const sought = { steps: 0 };
  assert.equal(xmlShape(nested(100_000, false), {}, sought).problem, tooDeep);
  assert.ok(reference.steps > MAX_XML_DEPTH, `${reference.steps}`);
  assert.equal(sought.steps, reference.steps);
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
  // It stops reading there: no more work than for a document that ends there.
  const reference = { steps: 0 };
  xmlShape(paragraphs(5), limits, reference);
  const sought = { steps: 0 };
  xmlShape(paragraphs(100_000), limits, sought);
  assert.ok(sought.steps <= reference.steps, `${sought.steps} steps, ${reference.steps} for five`);
});

/** The tokens as the regular expression the tokenizer replaced found them. */
function regexTokens(xml: string): XmlToken[] {
  const markup =
    /<(?:!--[\s\S]*?-->|!\[CDATA\[([\s\S]*?)\]\]>|[?!][^>]*>|(\/?)([^\s/>]+)((?:[^>"']|"[^"]*"|'[^']*')*)>)/g;
  const tokens: XmlToken[] = [];
  let end = 0;
  for (const match of xml.matchAll(markup)) {
    if (match.index > end) {
      tokens.push({ kind: "text", text: decodeEntities(xml.slice(end, match.index)) });
    }
    end = match.index + match[0].length;
    const [, cdata, slash, name, attributes = ""] = match;
    if (cdata !== undefined) tokens.push({ kind: "text", text: cdata });
    else if (name === undefined) continue;
    else if (slash) tokens.push({ kind: "close", name });
    else {
      const selfClosing = attributes.endsWith("/");
      tokens.push({
        kind: "open",
        name,
        attributes: selfClosing ? attributes.slice(0, -1) : attributes,
        selfClosing,
      });
    }
  }
  if (end < xml.length) tokens.push({ kind: "text", text: decodeEntities(xml.slice(end)) });
  return tokens;
}

Deno.test("`xmlTokens()` finds what the regular expression of markup found, in XML and mammoth's HTML", () => {
  const pieces = [
    "<a>",
    "</a>",
    '<w:t xml:space="preserve">',
    "<b x='1>2' y=\"it's\"/>",
    "<br/>",
    "<!-- <c> -->",
    "<![CDATA[<d>&amp;]]>",
    '<?xml version="1.0"?>',
    "<!DOCTYPE w>",
    "text",
    " ",
    "\n",
    "&amp;",
    "&#x41;",
    ">",
    '"',
    "'",
    "=",
    "/",
  ];
  let seed = 5;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let i = 0; i < 3000; i++) {
    const xml = Array.from(
      { length: Math.floor(random() * 12) },
      () => pieces[Math.floor(random() * pieces.length)],
    ).join("");
    assert.deepEqual([...xmlTokens(xml)], regexTokens(xml), JSON.stringify(xml));
  }
  // Where they differ: a "<" inside a tag, which well-formed XML never has, makes it text.
  assert.deepEqual([...xmlTokens("a <b <c>")], [
    { kind: "text", text: "a <b " },
    { kind: "open", name: "c", attributes: "", selfClosing: false },
  ]);
  assert.deepEqual([...xmlTokens('<d e="<">')], [{ kind: "text", text: '<d e="<">' }]);
});

Deno.test("`xmlTokens()` and `attribute()` read each character of 1 MB of hostile XML a bounded number of times", () => {
  const size = 1024 * 1024;
  const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  // Tags that never end, comments, CDATA and declarations without an end, names and quotes
  // without an end: each made the expression read the rest of the text, or try every split.
  const hostile = [
    "<a",
    "<a ",
    "<a<",
    "<!--",
    "<![CDATA[",
    "<?",
    "<!",
    "<a '",
    '<a "<',
    "a",
    "</",
    '<a b="c"',
  ];
  for (
    const xml of [...hostile.map(fill), `<${fill("a")}`, `<a ${fill("b")}`, `<a "${fill("b")}`]
  ) {
    const work = { steps: 0 };
    for (const _ of xmlTokens(xml, work));
    assert.ok(work.steps <= 4 * xml.length, `${JSON.stringify(xml.slice(0, 12))}: ${work.steps}`);
  }
  for (const attributes of ["a", "a=", 'a="', "a='b=\"", "a =", "a b ", '"a'].map(fill)) {
    const work = { steps: 0 };
    assert.equal(attribute(attributes, "zz"), undefined);
    attribute(attributes, "zz", work);
    assert.ok(
      work.steps <= 4 * attributes.length,
      `${JSON.stringify(attributes.slice(0, 12))}: ${work.steps}`,
    );
  }
});

Deno.test("`attribute()` reads the value of a name, in either quotes, decoded", () => {
  assert.equal(attribute(' Id="rId1" Target="slides/slide1.xml"', "Target"), "slides/slide1.xml");
  assert.equal(attribute(" type='ctrTitle'", "type"), "ctrTitle");
  assert.equal(attribute(' r:id = "a&amp;b"', "r:id"), "a&b");
  assert.equal(attribute(' name="Id" x="1"', "Id"), undefined);
  assert.equal(attribute(" Id=rId1", "Id"), undefined);
});
