import assert from "node:assert/strict";
import JSZip from "jszip";
import {
  MAX_SLIDE_BYTES,
  MAX_SLIDE_ELEMENTS,
  MAX_SLIDES,
  MAX_SLIDES_BYTES,
  MAX_SLIDES_ELEMENTS,
  pptxHandler,
} from "../../components/documents/pptx.ts";
import { fixture, refusal, zipOf } from "./_helpers.ts";

/** slides.pptx with the shape tree of slide 1 replaced by `shapes`. */
async function withSlide1(shapes: string): Promise<Uint8Array> {
  const archive = await JSZip.loadAsync(await fixture("slides.pptx"));
  const slide = await archive.file("ppt/slides/slide1.xml")!.async("string");
  const start = slide.indexOf("<p:sp>");
  const end = slide.lastIndexOf("</p:spTree>");
  archive.file("ppt/slides/slide1.xml", slide.slice(0, start) + shapes + slide.slice(end));
  return archive.generateAsync({ type: "uint8array", compression: "DEFLATE" });
}

const WELCOME = "Welcome\n\nQuarterly review of the garden project: beds & paths.\n" +
  'Led by <Mira> "Green" Oduya.';
const HARVEST = "Harvest\n\nCrop | Kilograms | Bed\nTomatoes | 120 | North\nBeans | 45 | South";
const NEXT = "Next steps\n\nPlant garlic in October\nRepair the greenhouse roof";

Deno.test("`pptxHandler` reads .pptx files", () => {
  assert.deepEqual(pptxHandler.suffixes, [".pptx"]);
});

Deno.test("`pptxHandler` gives one numbered page per slide, its title a paragraph, table rows as lines", async () => {
  assert.deepEqual(await pptxHandler.extractPages(await fixture("slides.pptx"), "slides.pptx"), [
    { text: WELCOME, number: 1 },
    { text: HARVEST, number: 2 },
    { text: NEXT, number: 3 },
  ]);
});

Deno.test("`pptxHandler` follows presentation order and reads grouped shapes", async () => {
  // grouped.pptx lists slide3, slide2, slide1, and slide3's shapes are in nested groups.
  assert.deepEqual(await pptxHandler.extractPages(await fixture("grouped.pptx"), "grouped.pptx"), [
    { text: NEXT, number: 1 },
    { text: HARVEST, number: 2 },
    { text: WELCOME, number: 3 },
  ]);
});

Deno.test('`pptxHandler` gives an empty slide the text ""', async () => {
  const pages = await pptxHandler.extractPages(await withSlide1(""), "empty.pptx");
  assert.deepEqual(pages.map((page) => page.text), ["", HARVEST, NEXT]);
});

Deno.test("`pptxHandler` sets a slide's title apart wherever its shape comes", async () => {
  const shape = (placeholder: string, text: string) =>
    `<p:sp><p:nvSpPr><p:nvPr>${placeholder}</p:nvPr></p:nvSpPr>` +
    `<p:txBody><a:p><a:r><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp>`;
  const title = shape('<p:ph type="title"/>', "Ranges");
  const body = shape('<p:ph idx="1"/>', "A range is a set of comparators.");
  const note = shape("", "Ask before the release.");
  const read = async (shapes: string) =>
    (await pptxHandler.extractPages(await withSlide1(shapes), "ranges.pptx"))[0]?.text;
  assert.equal(
    await read(body + title + note),
    "A range is a set of comparators.\n\nRanges\n\nAsk before the release.",
  );
  assert.equal(await read(title), "Ranges");
  assert.equal(
    await read(shape('<p:ph type="body"/>', "One") + note),
    "One\nAsk before the release.",
  );
});

Deno.test("`pptxHandler` reads text once where a shape has a fallback", async () => {
  const shapes =
    '<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">' +
    '<mc:Choice Requires="a14"><p:sp><p:txBody><a:p><a:r><a:t>x &lt; 1 &#x2192; y</a:t></a:r></a:p></p:txBody></p:sp></mc:Choice>' +
    "<mc:Fallback><p:sp><p:txBody><a:p><a:r><a:t>x &lt; 1 &#x2192; y</a:t></a:r></a:p></p:txBody></p:sp></mc:Fallback>" +
    '</mc:AlternateContent><p:sp><p:txBody><a:p/><a:p><a:r><a:t xml:space="preserve">after </a:t></a:r>' +
    "<a:r><a:t>it</a:t></a:r></a:p></p:txBody></p:sp>";
  const pages = await pptxHandler.extractPages(await withSlide1(shapes), "fallback.pptx");
  assert.equal(pages[0]?.text, "x < 1 → y\nafter it");
});

Deno.test("`pptxHandler` refuses a ZIP without ppt/presentation.xml", async () => {
  await assert.rejects(
    pptxHandler.extractPages(await fixture("notes.docx"), "notes.pptx"),
    refusal('Cannot read "notes.pptx": the file is not a PowerPoint presentation'),
  );
});

Deno.test("`pptxHandler` refuses a file that is not a ZIP", async () => {
  await assert.rejects(
    pptxHandler.extractPages(new TextEncoder().encode("slide one\n"), "plain.pptx"),
    refusal('Cannot read "plain.pptx": the file is not a ZIP archive (a .pptx file is one)'),
  );
});

Deno.test("`pptxHandler` refuses a presentation whose slide part is missing", async () => {
  const archive = await JSZip.loadAsync(await fixture("slides.pptx"));
  archive.remove("ppt/slides/slide2.xml");
  const bytes = await archive.generateAsync({ type: "uint8array" });
  await assert.rejects(
    pptxHandler.extractPages(bytes, "broken.pptx"),
    refusal('Cannot read "broken.pptx": the part "ppt/slides/slide2.xml" is missing'),
  );
});

/** A presentation of the slides given, in order, made from scratch. */
function deck(slides: (string | Uint8Array)[]): Uint8Array {
  const ids = slides.map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 1}"/>`).join("");
  const rels = slides.map((_, i) =>
    `<Relationship Id="rId${i + 1}" Type="slide" Target="slides/slide${i + 1}.xml"/>`
  ).join("");
  return zipOf({
    "ppt/presentation.xml":
      `<p:presentation xmlns:p="p" xmlns:r="r"><p:sldIdLst>${ids}</p:sldIdLst></p:presentation>`,
    "ppt/_rels/presentation.xml.rels": `<Relationships>${rels}</Relationships>`,
    ...Object.fromEntries(slides.map((slide, i) => [`ppt/slides/slide${i + 1}.xml`, slide])),
  });
}

/** A slide of one shape whose text body holds `paragraphs`. */
const slide = (paragraphs: string) =>
  `<p:sld><p:cSld><p:spTree><p:sp><p:txBody>${paragraphs}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`;

/**
 * A slide of about `bytes` bytes of text in a few elements, compressed some 80 to 1: a kilobyte of
 * random letters, over and over, which the ZIP guard's ratio check lets through.
 */
function slideOfBytes(bytes: number): Uint8Array {
  const letters = Array.from({ length: 1024 }, (_, i) => String.fromCharCode(97 + (i * 7919) % 26))
    .join("");
  return new TextEncoder().encode(
    slide(`<a:p><a:r><a:t>${letters.repeat(bytes / 1024)}</a:t></a:r></a:p>`),
  );
}

Deno.test("`pptxHandler` reads a generated presentation, one page a slide", async () => {
  const pages = await pptxHandler.extractPages(
    deck([slide("<a:p><a:r><a:t>One</a:t></a:r></a:p>"), slide("")]),
    "made.pptx",
  );
  assert.deepEqual(pages, [{ text: "One", number: 1 }, { text: "", number: 2 }]);
});

Deno.test("`pptxHandler` refuses a presentation of more slides than MAX_SLIDES", async () => {
  assert.equal(MAX_SLIDES, 5_000);
  const slides = Array.from({ length: MAX_SLIDES + 1 }, () => slide(""));
  await assert.rejects(
    pptxHandler.extractPages(deck(slides), "long.pptx"),
    refusal('Cannot read "long.pptx": it has more than 5,000 slides'),
  );
  const pages = await pptxHandler.extractPages(deck(slides.slice(1)), "long.pptx");
  assert.equal(pages.length, MAX_SLIDES);
});

Deno.test("`pptxHandler` refuses a slide larger than MAX_SLIDE_BYTES, and slides larger than MAX_SLIDES_BYTES together", async () => {
  assert.deepEqual([MAX_SLIDE_BYTES, MAX_SLIDES_BYTES], [16 * 2 ** 20, 128 * 2 ** 20]);
  await assert.rejects(
    pptxHandler.extractPages(deck([slide(""), slideOfBytes(MAX_SLIDE_BYTES)]), "big.pptx"),
    refusal('Cannot read "big.pptx": the part "ppt/slides/slide2.xml" is larger than 16 MiB'),
  );
  const most = slideOfBytes(MAX_SLIDE_BYTES - 1024);
  const slides = Array(Math.ceil(MAX_SLIDES_BYTES / most.length) + 1).fill(most);
  await assert.rejects(
    pptxHandler.extractPages(deck(slides), "big.pptx"),
    refusal('Cannot read "big.pptx": its slides are larger than 128 MiB together'),
  );
});

Deno.test("`pptxHandler` refuses a slide of more elements than MAX_SLIDE_ELEMENTS, and slides of more than MAX_SLIDES_ELEMENTS together", async () => {
  assert.deepEqual([MAX_SLIDE_ELEMENTS, MAX_SLIDES_ELEMENTS], [200_000, 2_000_000]);
  await assert.rejects(
    pptxHandler.extractPages(deck([slide("<a:br/>".repeat(MAX_SLIDE_ELEMENTS))]), "busy.pptx"),
    refusal(
      'Cannot read "busy.pptx": the part "ppt/slides/slide1.xml" has more than 200,000 elements',
    ),
  );
  const busy = slide("<a:br/>".repeat(MAX_SLIDE_ELEMENTS - 10));
  const slides = Array(Math.ceil(MAX_SLIDES_ELEMENTS / MAX_SLIDE_ELEMENTS) + 1).fill(busy);
  await assert.rejects(
    pptxHandler.extractPages(deck(slides), "busy.pptx"),
    refusal('Cannot read "busy.pptx": its slides have more than 2,000,000 elements together'),
  );
});
