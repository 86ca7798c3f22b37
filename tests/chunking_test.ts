import assert from "node:assert/strict";
import { chunkPages, countTokens, pageNumbersToLocation } from "../components/chunking.ts";
import { SvcError } from "../components/core/errors.ts";
import { decode, encode } from "gpt-tokenizer/encoding/cl100k_base";

const words = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => ` w${from + i}`).join("");

Deno.test("chunkPages() cuts windows of chunk_size tokens every chunk_size - chunk_overlap", () => {
  const text = "alpha bravo charlie delta echo foxtrot golf hotel india juliet";
  const tokens = encode(`${text}\n`);
  assert.equal(tokens.length, 16);
  const chunks = chunkPages([{ text, number: null }], { chunkSize: 4, chunkOverlap: 2 });
  assert.deepEqual(
    chunks.map((c) => c.text),
    [0, 2, 4, 6, 8, 10, 12].map((start) => decode(tokens.slice(start, start + 4))),
  );
  assert.ok(chunks.every((c) => c.numTokens === 4));
});

Deno.test("chunkPages() keeps the overlap between windows", () => {
  const chunks = chunkPages([{ text: words(0, 40), number: 1 }], {
    chunkSize: 10,
    chunkOverlap: 4,
  });
  for (let i = 1; i < chunks.length; i++) {
    const previous = chunks[i - 1]!.text.split(" ").filter(Boolean);
    const current = chunks[i]!.text.split(" ").filter(Boolean);
    assert.deepEqual(current.slice(0, 2), previous.slice(-2), `window ${i}`);
  }
});

Deno.test("chunkPages() takes the tokens left after the last full window", () => {
  const chunks = chunkPages([{ text: words(0, 12), number: 1 }], {
    chunkSize: 10,
    chunkOverlap: 5,
  });
  const last = chunks.at(-1)!;
  assert.match(last.text, /w11\n$/);
  assert.ok(last.numTokens <= 10);
});

Deno.test("chunkPages() gives one chunk for a document shorter than chunk_size", () => {
  const chunks = chunkPages([{ text: "short", number: null }], {
    chunkSize: 500,
    chunkOverlap: 250,
  });
  assert.deepEqual(chunks, [{ text: "short\n", pageNumbers: [], numTokens: 2 }]);
});

Deno.test("chunkPages() gives no chunk for a document without text", () => {
  assert.deepEqual(chunkPages([{ text: "", number: 1 }].slice(1)), []);
});

Deno.test("chunkPages() remembers the pages of each window's tokens", () => {
  const pages = [1, 2, 3].map((number) => ({
    text: words(number * 100, number * 100 + 30),
    number,
  }));
  assert.deepEqual(pages.map((page) => countTokens(`${page.text}\n`)), [61, 61, 61]);
  const chunks = chunkPages(pages, { chunkSize: 40, chunkOverlap: 0 });
  assert.deepEqual(chunks.map((c) => c.pageNumbers), [[1], [1, 2], [2], [2, 3], [3]]);
  assert.deepEqual(chunks.map((c) => c.numTokens), [40, 40, 40, 40, 23]);
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
  const tokens = countTokens(`${words(0, 100)}\n`);
  // Windows of 10 every 5 tokens: one, then one per 5 tokens after the first 10.
  const count = Math.ceil((tokens - 10) / 5) + 1;
  const options = { chunkSize: 10, chunkOverlap: 5, name: "book.txt" };
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

Deno.test("chunkPages() counts the windows it refuses as it would make them", () => {
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
