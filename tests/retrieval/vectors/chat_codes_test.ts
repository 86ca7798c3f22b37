import assert from "node:assert/strict";
import { scanBytes } from "../../../components/retrieval/vectors/code_arena.ts";
import { nearestChatCodes } from "../../../components/retrieval/vectors/chat_codes.ts";
import {
  endScanThread,
  ThreadCodes,
} from "../../../components/retrieval/vectors/code_scan_thread.ts";
import { nearestCodes, VectorCodes } from "../../../components/retrieval/vectors/vector_codes.ts";

function randomVectors(count: number, dimension: number, seed: number): Float32Array[] {
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
  return Array.from({ length: count }, () => Float32Array.from({ length: dimension }, random));
}

/** A chat of 12,000 vectors in four indexes, and the one index of them all that ranks them alike. */
function largeChat(seed: number) {
  const dimension = 48;
  const vectors = randomVectors(12_000, dimension, seed);
  const starts = [0, 3000, 3100, 9000];
  const parts = starts.map((start, i) =>
    VectorCodes.build(vectors.slice(start, starts[i + 1] ?? vectors.length), dimension)
  );
  const whole = VectorCodes.build(vectors, dimension);
  // The ranking the chat's scan must give, as positions among its vectors.
  const expected = (query: Float32Array, count: number) =>
    nearestCodes([whole], query, count).map(({ chunk }) => chunk);
  const positions = (hits: { index: number; chunk: number }[]) =>
    hits.map(({ index, chunk }) => starts[index]! + chunk);
  return { parts, expected, positions, queries: randomVectors(10, dimension, seed + 1) };
}

Deno.test("nearestChatCodes() of a chat of 10,000 chunks or more ranks as one index, laying no copy of the codes in this thread's memory", async () => {
  const chat = largeChat(21);
  chat.queries.forEach((query, q) => q % 2 && query.forEach((_, i) => i % 3 && (query[i] = 0)));
  const expected = chat.queries.map((query) => chat.expected(query, 50));
  const before = scanBytes().byteLength;
  for (const [q, query] of chat.queries.entries()) {
    const found = chat.positions(await nearestChatCodes(chat.parts, query, 50));
    assert.deepEqual(found, expected[q], `query ${q}`);
  }
  // Not laid out here (the code before laid the chat's codes in this thread's scan memory). That the
  // scan thread answers is the test of ThreadCodes below; here a failed thread would fall back.
  assert.equal(scanBytes().byteLength, before);
});

Deno.test("nearestChatCodes() answers the same when the scan thread stops halfway through a scan, and lays the codes again", async () => {
  const chat = largeChat(31);
  const [first, second] = chat.queries;
  await nearestChatCodes(chat.parts, first!, 40);
  const stopped = nearestChatCodes(chat.parts, first!, 40);
  endScanThread();
  assert.deepEqual(chat.positions(await stopped), chat.expected(first!, 40));
  // The next question starts a thread again.
  assert.deepEqual(
    chat.positions(await nearestChatCodes(chat.parts, second!, 40)),
    chat.expected(second!, 40),
  );
});

Deno.test("ThreadCodes take the memory of the codes laid, and once let go of refuse to scan, naming why", async () => {
  const [vector] = randomVectors(1, 8, 3);
  const laid = VectorCodes.lay([VectorCodes.build([vector!], 8)]);
  const codes = ThreadCodes.lay(laid);
  // Moved to the thread, not copied number by number.
  assert.deepEqual([laid.codes.byteLength, laid.factors.byteLength], [0, 0]);
  assert.deepEqual([...await codes.nearest(vector!, 1)], [0]);
  codes.discard();
  await assert.rejects(codes.nearest(vector!, 1), /No codes \d+ to scan: they were let go/);
  const wrong = ThreadCodes.lay({
    dimension: 2,
    size: 3,
    codes: new Int8Array(5),
    factors: new Float32Array(3),
  });
  await assert.rejects(wrong.nearest(vector!, 1), /need 32 codes and 3 factors, not 5 and 3/);
});

Deno.test("Scans asked of a stopped thread fail, and codes laid after start another", async () => {
  const [vector] = randomVectors(1, 8, 5);
  const codes = ThreadCodes.lay(VectorCodes.lay([VectorCodes.build([vector!], 8)]));
  endScanThread();
  await assert.rejects(codes.nearest(vector!, 1), /The vector scan's thread was stopped/);
  const again = ThreadCodes.lay(VectorCodes.lay([VectorCodes.build([vector!], 8)]));
  assert.deepEqual([...await again.nearest(vector!, 1)], [0]);
});

Deno.test("Scans asked of the thread at once take turns, each answered with its own ranking", async () => {
  const vectors = randomVectors(3000, 16, 41);
  const codes = VectorCodes.build(vectors, 16);
  const threaded = ThreadCodes.lay(VectorCodes.lay([codes]));
  const queries = randomVectors(6, 16, 43);
  const found = await Promise.all(queries.map((query, q) => threaded.nearest(query, 20 + q)));
  queries.forEach((query, q) => {
    const expected = nearestCodes([codes], query, 20 + q).map(({ chunk }) => chunk);
    assert.deepEqual([...found[q]!], expected, `query ${q}`);
  });
});

Deno.test("A scan of more dimensions or positions than the thread's channel holds is answered in full", async () => {
  const small = randomVectors(40, 4, 51);
  const smallCodes = VectorCodes.build(small, 4);
  const first = ThreadCodes.lay(VectorCodes.lay([smallCodes]));
  assert.deepEqual(
    [...await first.nearest(small[0]!, 5)],
    nearestCodes([smallCodes], small[0]!, 5).map(({ chunk }) => chunk),
  );
  // Wider and longer than any channel made before: a larger one is made and taken by the thread.
  const large = randomVectors(3000, 700, 53);
  const largeCodes = VectorCodes.build(large, 700);
  const second = ThreadCodes.lay(VectorCodes.lay([largeCodes]));
  const answer = await second.nearest(large[7]!, 2500);
  assert.equal(answer.length, 2500);
  assert.deepEqual(
    [...answer],
    nearestCodes([largeCodes], large[7]!, 2500).map(({ chunk }) => chunk),
  );
  // The codes laid before are scanned through the new channel too.
  assert.deepEqual(
    [...await first.nearest(small[3]!, 5)],
    nearestCodes([smallCodes], small[3]!, 5).map(({ chunk }) => chunk),
  );
});
