import assert from "node:assert/strict";
import { chunkPages, countTokens, pageNumbersToLocation } from "../components/chunking.ts";
import { SvcError } from "../components/core/errors.ts";

const words = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => ` w${from + i}`).join("");

const sentence = (i: number) => `Sentence ${i} tells of bread and salt.`;
const paragraph = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => sentence(from + i)).join(" ");

Deno.test("chunkPages() ends chunks between paragraphs, within chunk_size", () => {
  const paragraphs = [paragraph(0, 3), paragraph(3, 6), paragraph(6, 9), paragraph(9, 12)];
  const text = paragraphs.join("\n\n");
  const perParagraph = countTokens(paragraphs[0]!);
  const chunks = chunkPages([{ text, number: 1 }], {
    chunkSize: 2 * perParagraph + 4,
    chunkOverlap: 0,
  });
  assert.deepEqual(chunks.map((c) => c.text), [
    `${paragraphs[0]}\n\n${paragraphs[1]}`,
    `${paragraphs[2]}\n\n${paragraphs[3]}`,
  ]);
  assert.ok(chunks.every((c) => c.numTokens === countTokens(c.text)));
  assert.ok(chunks.every((c) => c.numTokens <= 2 * perParagraph + 4));
});

Deno.test("chunkPages() cuts a paragraph longer than chunk_size between sentences", () => {
  const chunks = chunkPages([{ text: paragraph(0, 20), number: 1 }], {
    chunkSize: 40,
    chunkOverlap: 0,
  });
  assert.ok(chunks.length > 1);
  for (const chunk of chunks) {
    assert.match(chunk.text, /^Sentence \d+ .*salt\.$/s);
    assert.ok(chunk.numTokens <= 40, `${chunk.numTokens} tokens`);
  }
  assert.equal(chunks.map((c) => c.text).join(" "), paragraph(0, 20));
});

Deno.test("chunkPages() cuts a sentence longer than chunk_size between words, a longer word into token windows", () => {
  // Words of letters only: a piece ends after letters, so "w12" would be two.
  const lettered = (from: number, to: number) =>
    words(from, to).replace(/\d/g, (digit) => "abcdefghij"[Number(digit)]!);
  const long = "x".repeat(300);
  const text = `${lettered(0, 40).trim()} ${long}${lettered(40, 50)}`;
  const chunks = chunkPages([{ text, number: null }], { chunkSize: 10, chunkOverlap: 0 });
  assert.ok(chunks.every((c) => c.numTokens <= 10));
  assert.ok(chunks.every((c) => c.numTokens === countTokens(c.text)));
  assert.equal(chunks.map((c) => c.text).join(""), text);
  // Each chunk is whole words, or a window of the long word's tokens.
  for (const { text } of chunks) assert.match(text, /^(?:(?: ?w[a-j]+)+|\s?x+)$/);
  assert.ok(chunks.filter((c) => /^x+$/.test(c.text)).length > 1, "the long word in windows");
});

Deno.test("chunkPages() repeats whole sentences of the chunk before, up to chunk_overlap", () => {
  const chunks = chunkPages([{ text: paragraph(0, 20), number: 1 }], {
    chunkSize: 40,
    chunkOverlap: 12,
  });
  const perSentence = countTokens(sentence(10));
  assert.ok(perSentence <= 12);
  for (let i = 1; i < chunks.length; i++) {
    const first = chunks[i]!.text.match(/^Sentence \d+ [^.]*\./)![0];
    assert.ok(chunks[i - 1]!.text.endsWith(first), `chunk ${i} starts with the last sentence`);
  }
});

Deno.test("chunkPages() gives one chunk for a document shorter than chunk_size", () => {
  const chunks = chunkPages([{ text: "short\n", number: null }], {
    chunkSize: 500,
    chunkOverlap: 250,
  });
  assert.deepEqual(chunks, [{ text: "short", pageNumbers: [], numTokens: 1 }]);
});

Deno.test("chunkPages() gives no chunk for a document without text", () => {
  assert.deepEqual(chunkPages([{ text: "", number: 1 }].slice(1)), []);
  assert.deepEqual(chunkPages([{ text: " \n\n ", number: 1 }]), []);
});

Deno.test("chunkPages() starts a chunk at a new page, so that a passage on one page names one page", () => {
  const pages = [1, 2, 3].map((number) => ({
    text: paragraph(number * 10, number * 10 + 3),
    number,
  }));
  // Each page is a third of chunk_size: more than a quarter, so it is a chunk of its own.
  const chunkSize = 3 * countTokens(pages[0]!.text);
  const chunks = chunkPages(pages, { chunkSize, chunkOverlap: 10 });
  assert.deepEqual(chunks.map((c) => c.pageNumbers), [[1], [2], [3]]);
  assert.deepEqual(chunks.map((c) => c.text), pages.map((page) => page.text));
});

Deno.test("chunkPages() joins a page too short for a chunk of its own to the next", () => {
  const pages = [
    { text: "Install", number: 1 },
    { text: "npm install semver", number: 2 },
    { text: paragraph(0, 3), number: 3 },
  ];
  const chunks = chunkPages(pages, { chunkSize: 200, chunkOverlap: 0 });
  assert.deepEqual(chunks.map((c) => c.pageNumbers), [[1, 2, 3]]);
});

Deno.test("chunkPages() with everyPage starts a chunk at each slide, a title alone heading the next", () => {
  const pages = [
    { text: "Install", number: 1 },
    { text: "npm install semver", number: 2 },
    { text: "Ranges", number: 3 },
    { text: "Ranges\n\nA range is a set of comparators.", number: 4 },
    { text: "Tilde ranges allow patch changes.", number: 5 },
    { text: "Functions", number: 6 },
    { text: "Comparison\n\ngt(v1, v2) tells whether v1 is greater.", number: 7 },
  ];
  const chunks = chunkPages(pages, { chunkSize: 200, chunkOverlap: 0, everyPage: true });
  assert.deepEqual(chunks.map((c) => [c.pageNumbers, c.text]), [
    // Slides 1 and 3, a title alone, make no chunk: the chunks after them start with it.
    [[2], "Install\n\nnpm install semver"],
    [[4], "Ranges\n\nA range is a set of comparators."],
    [[5], "Ranges\n\nTilde ranges allow patch changes."],
    // A title the next slide does not start with is a chunk of its own.
    [[6], "Functions"],
    [[7], "Comparison\n\ngt(v1, v2) tells whether v1 is greater."],
  ]);
  // Without everyPage, slides shorter than a quarter of a chunk join the next.
  assert.equal(chunkPages(pages, { chunkSize: 200, chunkOverlap: 0 }).length, 1);
});

Deno.test("chunkPages() starts a chunk at a heading, and puts its section's heading first", () => {
  const text = [
    "# Bread",
    paragraph(0, 12),
    "2.1 Storing bread",
    paragraph(12, 18),
    paragraph(18, 24),
  ].join("\n\n");
  const chunkSize = countTokens(paragraph(12, 18)) + 12;
  const chunks = chunkPages([{ text, number: 4 }], { chunkSize, chunkOverlap: 0 });
  const storing = chunks.filter((c) => /Sentence (12|18) /.test(c.text));
  assert.deepEqual(storing.map((c) => c.text), [
    `2.1 Storing bread\n\n${paragraph(12, 18)}`,
    `2.1 Storing bread\n\n${paragraph(18, 24)}`,
  ]);
  assert.ok(chunks[0]!.text.startsWith("# Bread\n\nSentence 0 "));
  const rest = chunks.filter((c) => /^Bread\n\nSentence/.test(c.text));
  assert.ok(rest.length > 0);
  assert.ok(chunks.every((c) => c.numTokens <= chunkSize));
});

Deno.test("chunkPages() refuses sizes that make no windows, naming the parameter", () => {
  const page = [{ text: "x", number: null }];
  assert.throws(
    () => chunkPages(page, { chunkSize: 0 }),
    (e) =>
      e instanceof SvcError && e.status === 422 &&
      /chunk_size must be a positive integer, not 0/.test(e.message),
  );
  assert.throws(
    () => chunkPages(page, { chunkSize: 10, chunkOverlap: 10 }),
    /chunk_overlap must be .* not 10/,
  );
});

Deno.test("pageNumbersToLocation() joins runs of three or more", () => {
  assert.equal(pageNumbersToLocation([]), "");
  assert.equal(pageNumbersToLocation([3]), "3");
  assert.equal(pageNumbersToLocation([2, 1]), "1, 2");
  assert.equal(pageNumbersToLocation([1, 2, 3]), "1-3");
  assert.equal(pageNumbersToLocation([8, 7, 5, 3, 2, 1, 2]), "1-3, 5, 7, 8");
  assert.equal(pageNumbersToLocation([1, 2, 3, 4, 6, 7, 8, 10]), "1-4, 6-8, 10");
});

Deno.test("chunkPages() refuses more chunks than maxChunks, naming the document, the count and the limit", () => {
  const pages = [{ text: words(0, 100), number: null }];
  const options = { chunkSize: 10, chunkOverlap: 5, name: "book.txt" };
  const count = chunkPages(pages, options).length;
  assert.ok(count > 10);
  assert.equal(chunkPages(pages, { ...options, maxChunks: count }).length, count);
  assert.throws(
    () => chunkPages(pages, { ...options, maxChunks: count - 1 }),
    (e) =>
      e instanceof SvcError && e.status === 422 &&
      e.message === `Cannot store "book.txt": it would make ${count} chunks, more than the limit ` +
          `of ${count - 1} per document: use a larger chunk_size, a smaller chunk_overlap, ` +
          "or split the document",
  );
});

Deno.test("chunkPages() counts the chunks it refuses as it would make them", () => {
  for (const length of [0, 1, 9, 10, 11, 14, 15, 16, 37]) {
    const pages = [{ text: words(0, length), number: null }];
    for (const [chunkSize, chunkOverlap] of [[10, 5], [10, 0], [10, 9], [3, 1], [50, 10]]) {
      const made = chunkPages(pages, { chunkSize, chunkOverlap }).length;
      const options = { chunkSize, chunkOverlap };
      assert.equal(chunkPages(pages, { ...options, maxChunks: made }).length, made);
      if (made > 0) {
        assert.throws(
          () => chunkPages(pages, { ...options, maxChunks: made - 1 }),
          new RegExp(`make ${made} chunks`),
          `${length} words, ${chunkSize}/${chunkOverlap}`,
        );
      }
    }
  }
});
