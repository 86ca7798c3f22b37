import assert from "node:assert/strict";
import { mergeTerms } from "../../../components/retrieval/lexical/chat_terms.ts";
import {
  COUNT_BITS,
  FTS5,
  rankPostings,
  TermPostings,
} from "../../../components/retrieval/lexical/term_postings.ts";

/** Chunks of words drawn by Zipf's law, as in text: a few words in most chunks, most in few. */
function zipfChunks(count: number, seed: number): string[] {
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const word = () => `w${Math.floor(Math.exp(random() * Math.log(5000))).toString(36)}x`;
  return Array.from(
    { length: count },
    () => Array.from({ length: 20 + Math.floor(random() * 100) }, word).join(" "),
  );
}

Deno.test("mergeTerms() makes of a chat's indexes the postings of one index of their chunks", async () => {
  // Some indexes empty, the terms of each in others too or in it alone.
  const texts = Array.from({ length: 40 }, (_, i) => zipfChunks(i % 7 === 0 ? 0 : 30, i + 1));
  const parts = await Promise.all(texts.map((chunks) => TermPostings.build(chunks, FTS5)));
  const whole = await TermPostings.build(texts.flat(), FTS5);
  const merged = mergeTerms(parts, COUNT_BITS);
  assert.ok(merged.keys.length > 1000, `${merged.keys.length} terms`);
  assert.deepEqual(merged.keys, whole.terms.keys);
  assert.deepEqual(merged.starts, whole.terms.starts);
  assert.deepEqual(merged.postings, whole.postingsOf);
  assert.deepEqual(merged.lengths, whole.lengths);
});

/**
 * Ranks `chunks` cut into indexes of `per` chunks and as one index, for
 * queries of Zipf-drawn words, and asserts the same chunks and scores, to the
 * bit; gives the indexes and the one index.
 */
async function assertRanksAsOneIndex(chunks: string[], per: number, seed: number) {
  const parts = await Promise.all(
    Array.from(
      { length: Math.ceil(chunks.length / per) },
      (_, i) => TermPostings.build(chunks.slice(per * i, per * i + per), FTS5),
    ),
  );
  const whole = await TermPostings.build(chunks, FTS5);
  const queries = zipfChunks(30, seed).map((text) =>
    text.split(" ").slice(0, 2 + (text.length % 10)).join(" ")
  );
  for (const query of queries) {
    const found = rankPostings(parts, query, 100)
      .map(({ index, chunk, score }) => ({ position: per * index + chunk, score }));
    const expected = rankPostings([whole], query, 100)
      .map(({ chunk, score }) => ({ position: chunk, score }));
    assert.deepEqual(found, expected, query);
  }
  return { parts, whole };
}

Deno.test("rankPostings() over a chat of many indexes ranks as over one index of the same chunks", async () => {
  await assertRanksAsOneIndex(zipfChunks(3000, 5), 50, 9);
});

Deno.test("rankPostings() over a chat of 32 indexes or more ranks their postings merged, and ranks the same", async () => {
  const { parts, whole } = await assertRanksAsOneIndex(zipfChunks(12_000, 7), 300, 11);
  // The 40 indexes' postings were merged, and kept for the next question.
  const merged = TermPostings.merged(parts)!;
  assert.equal(TermPostings.merged(parts), merged);
  assert.deepEqual(merged.postingsOf, whole.postingsOf);
  assert.equal(merged.totalLength, whole.totalLength);
  // A chat of fewer indexes is not merged: looking its terms up in each costs less.
  assert.equal(TermPostings.merged(parts.slice(0, 31)), undefined);
  assert.ok(TermPostings.merged(parts.slice(0, 32)));
});
