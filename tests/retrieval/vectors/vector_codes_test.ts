import assert from "node:assert/strict";
import { scanBytes } from "../../../components/retrieval/vectors/code_arena.ts";
import { nearestCodes, VectorCodes } from "../../../components/retrieval/vectors/vector_codes.ts";
import { slow } from "../../_tier.ts";

function randomVectors(count: number, dimension: number, seed: number): Float32Array[] {
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
  return Array.from({ length: count }, () => Float32Array.from({ length: dimension }, random));
}

function exactTop(vectors: Float32Array[], query: Float32Array, k: number): number[] {
  const cosine = (v: Float32Array) => {
    let dot = 0, norm = 0;
    v.forEach((x, i) => (dot += x * query[i]!, norm += x * x));
    return dot / Math.sqrt(norm);
  };
  const scores = vectors.map(cosine);
  return [...scores.keys()].sort((a, b) => scores[b]! - scores[a]!).slice(0, k);
}

Deno.test("nearestCodes() finds the exact scan's nearest among its candidates, over several documents", () => {
  for (const dimension of [8, 64, 200]) {
    const vectors = randomVectors(600, dimension, dimension);
    const parts = [vectors.slice(0, 250), vectors.slice(250, 250), vectors.slice(250)];
    const codes = parts.map((part) => VectorCodes.build(part, dimension));
    for (const [q, query] of randomVectors(20, dimension, 7 * dimension).entries()) {
      // A sparse query too, as the hash embedder makes for a short question.
      if (q % 2) query.forEach((_, i) => i % 5 && (query[i] = 0));
      const found = nearestCodes(codes, query, 30).map(({ index, chunk }) =>
        chunk + (index === 0 ? 0 : 250)
      );
      assert.equal(found.length, 30);
      for (const nearest of exactTop(vectors, query, 10)) {
        assert.ok(found.includes(nearest), `${dimension} dimensions, query ${q}`);
      }
    }
  }
});

Deno.test("nearestCodes() ranks by a query of an odd number of dimensions as by the exact cosine", () => {
  // Vectors whose largest component is 127 are coded exactly; the scan adds two dimensions at a
  // time, and the query's three (of four) are paired with a fourth of weight 0.
  let seed = 3;
  const random = () => (seed = (seed * 16807) % 2147483647) % 255 - 127;
  const vectors = Array.from(
    { length: 40 },
    () => Float32Array.of(random(), random(), random(), 127),
  );
  const query = Float32Array.of(0.5, -0.25, 0, 0.125);
  const found = nearestCodes([VectorCodes.build(vectors, 4)], query, 40).map(({ chunk }) => chunk);
  assert.deepEqual(found, exactTop(vectors, query, 40));
});

Deno.test("nearestCodes() gives nothing for no vectors, and a zero vector is nearest nothing", () => {
  assert.deepEqual(nearestCodes([], Float32Array.of(1, 0), 5), []);
  assert.deepEqual(nearestCodes([VectorCodes.build([], 2)], Float32Array.of(1, 0), 5), []);
  const codes = VectorCodes.build([Float32Array.of(0, 0), Float32Array.of(-1, 0)], 2);
  assert.deepEqual(nearestCodes([codes], Float32Array.of(1, 0), 1), [{ index: 0, chunk: 0 }]);
  assert.deepEqual(nearestCodes([codes], Float32Array.of(1, 0), 0), []);
  assert.equal(codes.size, 2);
  // Each dimension's codes padded to 16 vectors, and a factor of 4 bytes a vector.
  assert.equal(codes.bytes, 2 * 16 + 2 * 4);
});

Deno.test("nearestCodes() of a large chat completes its best candidates with the other dimensions", () => {
  // More vectors than the first pass completes (1,000), and a query of more dimensions than its head.
  const dimension = 200;
  const vectors = randomVectors(3000, dimension, 11);
  const codes = [0, 1000, 2000].map((start) =>
    VectorCodes.build(vectors.slice(start, start + 1000), dimension)
  );
  for (const [q, query] of randomVectors(10, dimension, 13).entries()) {
    const found = nearestCodes(codes, query, 30).map(({ index, chunk }) => 1000 * index + chunk);
    for (const nearest of exactTop(vectors, query, 10)) {
      assert.ok(found.includes(nearest), `query ${q}`);
    }
  }
});

slow.test("VectorCodes released by a cache still answer a search that holds them, and give their memory back", () => {
  const dimension = 64;
  const vectors = randomVectors(300, dimension, 5);
  const query = randomVectors(1, dimension, 9)[0]!;
  const codes = VectorCodes.build(vectors, dimension);
  const before = nearestCodes([codes], query, 20);
  codes.release();
  codes.release();
  // Other codes take the memory given back.
  const other = VectorCodes.build(randomVectors(300, dimension, 77), dimension);
  assert.deepEqual(nearestCodes([codes], query, 20), before);
  assert.notDeepEqual(nearestCodes([other], query, 20), before);

  // Codes of 1 MiB built and released 200 times take the same memory again and again.
  const many = randomVectors(2048, 512, 3);
  const memory = () => scanBytes().byteLength;
  VectorCodes.build(many, 512).release();
  const after = memory();
  for (let i = 0; i < 200; i++) VectorCodes.build(many, 512).release();
  assert.equal(memory(), after);
});

Deno.test("VectorCodes laid end to end and made codes again rank as one index of the same vectors", () => {
  const dimension = 48;
  const vectors = randomVectors(2500, dimension, 21);
  const starts = [0, 1000, 1100, 2000];
  const parts = starts.map((start, i) =>
    VectorCodes.build(vectors.slice(start, starts[i + 1] ?? vectors.length), dimension)
  );
  const laid = VectorCodes.lay(parts);
  assert.deepEqual([laid.size, laid.dimension, laid.codes.length], [2500, 48, 48 * 2512]);
  const whole = VectorCodes.build(vectors, dimension);
  const again = VectorCodes.fromLaid(laid);
  for (const [q, query] of randomVectors(10, dimension, 23).entries()) {
    if (q % 2) query.forEach((_, i) => i % 3 && (query[i] = 0));
    assert.deepEqual(nearestCodes([again], query, 50), nearestCodes([whole], query, 50));
  }
});

Deno.test("VectorCodes.fromLaid() names what does not fit the size and dimension it is given", () => {
  const laid = { dimension: 2, size: 3, codes: new Int8Array(5), factors: new Float32Array(3) };
  assert.throws(
    () => VectorCodes.fromLaid(laid),
    new RangeError(
      "Laid codes of 3 vectors of 2 dimensions need 32 codes and 3 factors, not 5 and 3",
    ),
  );
});
