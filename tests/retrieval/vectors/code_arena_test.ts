import assert from "node:assert/strict";
import {
  Blocks,
  dots,
  scanIntegers,
  scratchBlock,
} from "../../../components/retrieval/vectors/code_arena.ts";

/** Blocks in a memory that starts empty, with the pages each growth asked for. */
function blocks() {
  const grown: number[] = [];
  return { blocks: new Blocks(0, (pages) => grown.push(pages)), grown };
}

Deno.test("Blocks take 16-byte aligned blocks at the end, growing the memory a page at a time", () => {
  const { blocks: memory, grown } = blocks();
  assert.deepEqual(memory.take(1), { offset: 0, bytes: 16 });
  assert.deepEqual(memory.take(17), { offset: 16, bytes: 32 });
  assert.deepEqual(grown, [1]);
  assert.deepEqual(memory.take(65536), { offset: 48, bytes: 65536 });
  assert.deepEqual(grown, [1, 1]);
  assert.deepEqual(memory.take(3 * 65536), { offset: 65584, bytes: 3 * 65536 });
  assert.deepEqual(grown, [1, 1, 3]);
  assert.equal(memory.end, 65584 + 3 * 65536);
});

Deno.test("Blocks reuse a block given back, merge neighbours, and give the end back", () => {
  const { blocks: memory, grown } = blocks();
  const [a, b, c, d] = [memory.take(32), memory.take(32), memory.take(32), memory.take(32)];
  memory.give(b);
  // Too large for the free block: taken at the end.
  assert.equal(memory.take(48).offset, 128);
  memory.give({ offset: 128, bytes: 48 });
  assert.equal(memory.end, 128);
  // a and c merge with b into one free block of 96 bytes.
  memory.give(a);
  memory.give(c);
  assert.deepEqual(memory.take(96), { offset: 0, bytes: 96 });
  memory.give({ offset: 0, bytes: 96 });
  // d was the last block: giving it back gives everything back.
  memory.give(d);
  assert.equal(memory.end, 0);
  assert.deepEqual(memory.take(16), { offset: 0, bytes: 16 });
  assert.deepEqual(grown, [1]);
});

Deno.test("dots() sums integer weights times 8-bit codes of 16 vectors at a time, two dimensions at once", () => {
  // Three dimensions of 32 vectors: the code of dimension d of vector i is (i - 16) * (d + 1) % 128.
  const stride = 32;
  using codes = scratchBlock(3 * stride);
  using query = scratchBlock(4 * (4 + 2 + stride));
  const bytes = new Int8Array(scanIntegers().buffer);
  const code = (d: number, i: number) => ((i - 16) * (d + 1)) % 128;
  for (let d = 0; d < 3; d++) {
    for (let i = 0; i < stride; i++) bytes[codes.offset + d * stride + i] = code(d, i);
  }
  const integers = scanIntegers();
  const at = query.offset / 4;
  // Dimensions 2 and 0 weighted -32768 and 32767 (the widest 16 bits), then 1 and 2 weighted 5 and -7.
  const pair = (low: number, high: number) => (low & 0xffff) | (high << 16);
  integers.set([2, 0, 1, 2, pair(-32768, 32767), pair(5, -7)], at);
  dots(codes.offset, stride, query.offset, query.offset + 16, 4, query.offset + 24);
  const sums = [...integers.subarray(at + 6, at + 6 + stride)];
  assert.deepEqual(
    sums,
    Array.from(
      { length: stride },
      (_, i) => -32768 * code(2, i) + 32767 * code(0, i) + 5 * code(1, i) - 7 * code(2, i),
    ),
  );
});
