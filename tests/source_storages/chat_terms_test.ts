import assert from "node:assert/strict";
import { ChatTerms } from "../../components/source_storages/_chat_terms.ts";
import {
  COUNT_BITS,
  FTS5,
  rankPostings,
  termKey,
  TermPostings,
} from "../../components/source_storages/_term_postings.ts";

/** Chunks of words drawn by Zipf's law, as in text: a few words in most chunks, most in few. */
function zipfChunks(count: number, seed: number): string[] {
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const word = () => `w${Math.floor(Math.exp(random() * Math.log(5000))).toString(36)}x`;
  return Array.from(
    { length: count },
    () => Array.from({ length: 20 + Math.floor(random() * 100) }, word).join(" "),
  );
}

Deno.test("ChatTerms finds where each term lies in each index, as each index's own lookup does", async () => {
  const indexes = await Promise.all(
    Array.from(
      { length: 40 },
      (_, i) => TermPostings.build(zipfChunks(i % 7 === 0 ? 0 : 30, i + 1), FTS5),
    ),
  );
  const terms = ChatTerms.build(indexes);
  const keys = new Set(indexes.flatMap((index) => [...index.terms.keys]));
  // Terms of no index too, and one in a bucket of others.
  for (const key of [...keys, termKey("absent"), termKey("w0x") + 1]) {
    const bounds = new Uint32Array(2 * indexes.length);
    const found = terms.bounds(key, bounds);
    const expected = indexes.flatMap((index) => index.range(key));
    assert.deepEqual([...bounds], expected, `key ${key}`);
    assert.equal(
      found,
      indexes.reduce((sum, index) => sum + index.range(key)[1] - index.range(key)[0], 0),
    );
  }
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

Deno.test("rankPostings() over a chat of 10,000 chunks or more reads its terms' postings laid end to end, and ranks the same", async () => {
  // 40 indexes: the chat's terms are kept, and the postings laid.
  const { parts, whole } = await assertRanksAsOneIndex(zipfChunks(12_000, 7), 300, 11);

  // A term's laid postings are each index's, numbered among the chat's chunks.
  const starts = Uint32Array.from({ length: 41 }, (_, i) => 300 * i);
  const key = termKey("w1x");
  const bounds = new Uint32Array(80);
  const terms = ChatTerms.of(parts)!;
  const frequency = terms.bounds(key, bounds);
  const laid = terms.laid(parts, starts, { key, bounds, frequency }, COUNT_BITS)!;
  const [from, to] = whole.range(key);
  assert.ok(to - from > 1000, `${to - from} postings`);
  assert.deepEqual(laid.postings, whole.postingsOf.slice(from, to));
  assert.deepEqual(laid.lengths, whole.lengths);
  // A chat of fewer chunks has none laid.
  const fewer = parts.slice(0, 33);
  assert.equal(
    ChatTerms.of(fewer)!.laid(fewer, starts, { key, bounds, frequency }, COUNT_BITS),
    undefined,
  );
});
