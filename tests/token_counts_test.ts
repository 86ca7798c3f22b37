import assert from "node:assert/strict";
import { encode } from "gpt-tokenizer/encoding/cl100k_base";
import { chunkPages } from "../components/chunking.ts";
import { LocalDocument } from "../components/core/document.ts";
import { readPages } from "../components/documents/pages.ts";
import { pageBlocks, sentences } from "../components/text_blocks.ts";
import {
  countTokens,
  encodeTokens,
  isCut,
  measureTokens,
  pieceWindows,
} from "../components/token_counts.ts";
import { FIXTURES } from "./test_utils.ts";
import { slow } from "./_tier.ts";

/** Every readable document of the fixtures and of the labelled set. */
const DOCUMENTS = [
  "kitchen.md",
  "guide.md",
  "latin1.txt",
  "report.pdf",
  "layout.pdf",
  "notes.docx",
  "slides.pptx",
  "grouped.pptx",
  "labelled/commander.md",
  "labelled/clsguide.pdf",
  "labelled/grfguide.pdf",
  "labelled/usrguide.pdf",
  "labelled/semver.pptx",
  "labelled/smol-toml.docx",
];

function assertSameTokens(text: string): void {
  const expected = encode(text);
  const quoted = JSON.stringify(text);
  assert.deepEqual(encodeTokens(text), expected, `the tokens of ${quoted}`);
  assert.equal(countTokens(text), expected.length, `the count of ${quoted}`);
  const measured = measureTokens(text, true);
  assert.equal(measured.tokens, expected.length);
  if (measured.pieces) {
    const { ends, tokens } = measured.pieces;
    assert.equal(ends.at(-1) ?? 0, text.length, quoted);
    ends.forEach((end, i) => {
      assert.ok(end === text.length || isCut(text, end), `piece ${i} of ${quoted} ends at a cut`);
      assert.equal(tokens[i], encode(text.slice(0, end)).length, `piece ${i} of ${quoted}`);
    });
    // Windows of whole pieces: their tokens as measured, their text the whole text (windows
    // at least as long as its longest piece, which are never cut between its tokens).
    const longest = Math.max(0, ...tokens.map((count, i) => count - (tokens[i - 1] ?? 0)));
    for (const limit of [longest, longest + 7, 64].filter((limit) => limit >= longest)) {
      const windows = pieceWindows(text, measured.pieces, limit);
      assert.equal(windows.map((window) => window.text).join(""), text, quoted);
      for (const window of windows) {
        assert.deepEqual(window.measured, measureTokens(window.text), `${limit}: ${quoted}`);
        assert.ok(window.measured.tokens <= limit, `${limit}: ${JSON.stringify(window.text)}`);
      }
    }
  } else assert.ok(text.includes("<|"), `the pieces of ${quoted}`);
  if (measured.first >= 0) {
    assert.ok(isCut(text, measured.first) && isCut(text, measured.last), quoted);
    const inner = encode(text.slice(measured.first, measured.last)).length;
    assert.equal(measured.inner, inner, `the inner tokens of ${quoted}`);
  } else assert.equal(measured.inner, 0);
}

/** Every cut of a text parts its tokens: those before it, then those after it. */
function assertCutsPart(text: string): void {
  for (let at = 0; at <= text.length; at++) {
    if (!isCut(text, at)) continue;
    const parted = [...encode(text.slice(0, at)), ...encode(text.slice(at))];
    assert.deepEqual(parted, encode(text), `${JSON.stringify(text)} cut at ${at}`);
  }
}

slow.test("encodeTokens() and countTokens() give the tokenizer's own result on every text chunking counts in the fixture documents", async () => {
  for (const name of DOCUMENTS) {
    const pages = await readPages(LocalDocument.fromPath(`${FIXTURES}${name}`));
    for (const page of pages) {
      assertSameTokens(page.text);
      // chunkPages() counts blocks, headings, the sentences of long blocks and the chunks
      // it makes: when all agree, its chunks are those of the tokenizer's own counts.
      for (const block of pageBlocks(page.text)) {
        assertSameTokens(block.text);
        if (block.heading !== undefined) assertSameTokens(block.heading);
        for (const sentence of sentences(block.text)) assertSameTokens(sentence);
      }
    }
    for (const [chunkSize, chunkOverlap] of [[500, 100], [64, 16]] as const) {
      for (const chunk of chunkPages(pages, { chunkSize, chunkOverlap })) {
        assert.equal(chunk.numTokens, encode(chunk.text).length, `a chunk of ${name}`);
      }
    }
  }
});

Deno.test("encodeTokens() gives the tokenizer's own result where letters meet other characters", () => {
  const texts = [
    "",
    "Hello  world\n\n  \n",
    "café's naïve résumé, ÉTÉ",
    "x'll it's WE'RE they've I'd  \r\n\r\n",
    "1234567 a1b2 3.14159 v2.0-beta",
    "日本語のテキスト。次の文。",
    "😀 emoji😀word 𝐀𝐁c 𝐀 b",
    "tab\tsep\u00a0nbsp e\u0301t\u00e9",
    "end with spaces   ",
    "lone \ud800 surrogate\udc00 halves",
  ];
  for (const text of texts) {
    assertSameTokens(text);
    assertCutsPart(text);
  }
  // Texts drawn from the characters where the tokenizer's pieces end.
  // deno-fmt-ignore
  const alphabet = [
    "a", "B", "é", "ß", " ", "  ", "\n", "\r\n", "\t", ".", ",", "'", "'s", "'ll", "1", "23",
    "4567", "-", "—", "“", "日", "😀", "𝐀", "\u0301", "\u00a0", "!?", "_", "x",
  ];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
  for (let n = 0; n < 5000; n++) {
    let text = "";
    for (let i = Math.floor(next() * 30); i >= 0; i--) {
      text += alphabet[Math.floor(next() * alphabet.length)];
    }
    assertSameTokens(text);
    assertCutsPart(text);
  }
});

Deno.test("encodeTokens() refuses a special token as the tokenizer does", () => {
  assert.throws(() => encode("a <|endoftext|> b"), /special token/);
  assert.throws(() => encodeTokens("a <|endoftext|> b"), /special token/);
  assert.throws(() => countTokens("a <|endoftext|> b"), /special token/);
  assertSameTokens("a <| b |> c");
});

Deno.test("chunkPages() counts the tokens of chunks of token windows as the tokenizer does", () => {
  // Sentences longer than a chunk, of words and of letters that take several tokens each.
  const words = Array.from({ length: 3000 }, (_, i) => ["brød", "日本語", "x1", "naïve"][i % 4]);
  const pages = [
    { text: `Title\n\n${words.join(" ")}`, number: 1 },
    { text: words.join("").slice(0, 4000), number: 2 },
  ];
  for (const [chunkSize, chunkOverlap] of [[500, 100], [37, 5], [16, 0]] as const) {
    const chunks = chunkPages(pages, { chunkSize, chunkOverlap });
    assert.ok(chunks.length > 10);
    for (const chunk of chunks) assert.equal(chunk.numTokens, encode(chunk.text).length);
  }
});
