import assert from "node:assert/strict";
import { chunkPages } from "../../components/chunking.ts";
import type { Source } from "../../components/core/source.ts";
import { joinNeighbours, type Passage } from "../../components/retrieval/neighbours.ts";
import { pageNumbersToLocation } from "../../components/page_location.ts";

const document = { name: "guide.pdf" } as Source["document"];

/** Sources of passages, and where each is, as a storage would give them. */
function passages(...parts: { key?: string; ordinal: number; pages: number[]; text: string }[]) {
  const where = new Map<Source, Passage>();
  const sources = parts.map(({ key = "k", ordinal, pages, text }) => {
    const source: Source = {
      id: `${key}-${ordinal}`,
      document,
      location: pageNumbersToLocation(pages),
      content: text,
      numTokens: 10,
    };
    where.set(source, { key, ordinal, pageNumbers: pages });
    return source;
  });
  return { sources, passageOf: (source: Source) => where.get(source)! };
}

Deno.test("joinNeighbours() joins the neighbouring passages of a page at the better one's rank", () => {
  const { sources, passageOf } = passages(
    { ordinal: 7, pages: [2], text: "Prices\nA loaf costs two." },
    { ordinal: 4, pages: [2], text: "Rules\nIt rises overnight. Bake it at dawn." },
    { ordinal: 3, pages: [2], text: "Rules\nMix the dough. It rises overnight." },
    { ordinal: 5, pages: [2], text: "Rules\nBake it at dawn. Sell it by noon." },
  );
  const joined = joinNeighbours(sources, passageOf);
  assert.deepEqual(
    joined.map(({ id, location, content, numTokens }) => ({ id, location, content, numTokens })),
    [
      { id: "k-7", location: "2", content: "Prices\nA loaf costs two.", numTokens: 10 },
      {
        id: "k-3-5",
        location: "2",
        // The heading that opens each passage once, and each sentence of the overlaps once.
        content: "Rules\nMix the dough. It rises overnight. Bake it at dawn. Sell it by noon.",
        numTokens: 30,
      },
    ],
  );
  assert.equal(joined[0], sources[0], "a source without neighbours is the same object");
  assert.equal(joined[1]!.document, document);
});

Deno.test("joinNeighbours() joins no passages of other pages or indexes, or apart", () => {
  const { sources, passageOf } = passages(
    { ordinal: 1, pages: [2], text: "Rules\nOne." },
    { ordinal: 2, pages: [3], text: "Rules\nTwo." },
    { ordinal: 3, pages: [3], text: "Prices\nThree." },
    { ordinal: 5, pages: [3], text: "Prices\nFive." },
    { ordinal: 6, key: "other", pages: [3], text: "Prices\nSix." },
  );
  const joined = joinNeighbours(sources, passageOf);
  // One page's neighbours are joined across its sections, as the page shows them.
  assert.deepEqual(joined.map(({ id, content }) => [id, content]), [
    ["k-1", "Rules\nOne."],
    ["k-2-3", "Rules\nTwo.\n\nPrices\nThree."],
    ["k-5", "Prices\nFive."],
    ["other-6", "Prices\nSix."],
  ]);
});

Deno.test("joinNeighbours() leaves out only whole sentences that a passage repeats", () => {
  const { sources, passageOf } = passages(
    { ordinal: 1, pages: [3], text: "Rules\nSee table 1" },
    { ordinal: 2, pages: [3], text: "1 Introduction to prices. Loaves cost two." },
    { ordinal: 3, pages: [3], text: "Loaves cost two. Rolls cost one." },
  );
  assert.deepEqual(joinNeighbours(sources, passageOf).map(({ content }) => content), [
    "Rules\nSee table 1\n\n1 Introduction to prices. Loaves cost two. Rolls cost one.",
  ]);
});

Deno.test("joinNeighbours() joins the passages of a document without pages within a section", () => {
  const { sources, passageOf } = passages(
    { ordinal: 1, pages: [], text: "Rules\nOne." },
    { ordinal: 2, pages: [], text: "Prices\nTwo." },
    { ordinal: 3, pages: [], text: "Prices\nThree." },
    // The first passage of a Markdown section opens with its heading as written.
    { ordinal: 7, pages: [], text: "## Hours\n\nOpen at six." },
    { ordinal: 8, pages: [], text: "Hours\n\nClosed on Mondays." },
  );
  assert.deepEqual(
    joinNeighbours(sources, passageOf).map(({ id, location, content }) => [id, location, content]),
    [
      ["k-1", "", "Rules\nOne."],
      ["k-2-3", "", "Prices\nTwo.\n\nThree."],
      ["k-7-8", "", "## Hours\n\nOpen at six.\n\nClosed on Mondays."],
    ],
  );
});

Deno.test("joinNeighbours() joins a passage over two pages with its neighbour on one of them", () => {
  const { sources, passageOf } = passages(
    { ordinal: 2, pages: [3], text: "Rules\nthe end of it." },
    { ordinal: 1, pages: [2, 3], text: "Rules\nA sentence over two pages, to" },
    { ordinal: 3, pages: [3, 4], text: "Rules\nAnd the next page." },
  );
  const [joined, ...rest] = joinNeighbours(sources, passageOf);
  // Passages 1 and 2 lie on pages 2 and 3; 3 would add page 4.
  assert.deepEqual([joined!.id, joined!.location], ["k-1-2", "2, 3"]);
  // Without an overlap to leave out, what follows the heading is joined as a paragraph.
  assert.equal(joined!.content, "Rules\nA sentence over two pages, to\n\nthe end of it.");
  assert.deepEqual(rest, [sources[2]]);
});

Deno.test("joinNeighbours() gives back a page's text from all of its chunks, each word once", () => {
  const sentences = Array.from(
    { length: 40 },
    (_, i) => `Sentence ${i + 1} tells how the dough of loaf ${i + 1} rests.`,
  );
  const page = { number: 4, text: `Resting the dough\n\n${sentences.join(" ")}` };
  const chunks = chunkPages([page], { chunkSize: 60, chunkOverlap: 20 });
  assert.ok(chunks.length >= 5, `${chunks.length} chunks`);
  const { sources, passageOf } = passages(
    ...chunks.map((chunk, ordinal) => ({ ordinal, pages: chunk.pageNumbers, text: chunk.text })),
  );
  // Ranked in another order than the document's.
  const [joined, ...rest] = joinNeighbours([...sources].reverse(), passageOf);
  assert.deepEqual(rest, []);
  assert.equal(joined!.content, page.text);
  assert.equal(joined!.id, `k-0-${chunks.length - 1}`);
});
