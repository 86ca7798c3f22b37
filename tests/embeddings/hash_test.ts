import assert from "node:assert/strict";
import { HashEmbedder, PairCounts } from "../../components/embeddings/hash.ts";

const dot = (a: Float32Array, b: Float32Array) =>
  a.reduce((sum, value, i) => sum + value * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

Deno.test("HashEmbedder gives unit vectors of its dimension, named by it", async () => {
  for (const dimension of [512, 384, 100]) {
    const embedder = new HashEmbedder({ dimension });
    assert.equal(embedder.id, `svc/hash-v1-${dimension}`);
    const vectors = await embedder.embed(["Rye bread from a wood-fired oven.", "", "?!"]);
    assert.equal(vectors.length, 3);
    for (const vector of vectors) {
      assert.equal(vector.length, dimension);
      assert.ok(Math.abs(norm(vector) - 1) < 1e-5, `norm ${norm(vector)}`);
    }
  }
});

Deno.test("HashEmbedder is the same on every run: a change of features needs a new id", () => {
  // If this fails, stored indexes no longer match new vectors: bump the "v1" in the id.
  const [vector] = new HashEmbedder().embedSync(["The secret ingredient is cardamom."]);
  const top = [...vector!].map((value, i) => [i, value] as const)
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1])).slice(0, 5)
    .map(([i, value]) => [i, Number(value.toFixed(4))]);
  assert.deepEqual(top, [[176, 0.3582], [380, 0.3582], [480, -0.3582], [103, 0.2508], [
    444,
    0.2508,
  ]]);
  const [other] = new HashEmbedder({ dimension: 384 }).embedSync(["Größe café"]);
  const large = [...other!].map((value, i) => [i, Number(value.toFixed(4))])
    .filter(([, value]) => Math.abs(value!) > 0.2);
  assert.deepEqual(large, [[105, 0.365], [152, 0.5215], [268, 0.5215]]);
});

Deno.test("HashEmbedder ignores case, diacritics, function words and punctuation", () => {
  const embedder = new HashEmbedder();
  const [a, b] = embedder.embedSync(["The CAFÉ's crème!", "cafe s creme"]);
  assert.ok(dot(a!, b!) > 0.999, `similarity ${dot(a!, b!)}`);
});

Deno.test("HashEmbedder puts texts that share words, stems and spellings near", () => {
  const embedder = new HashEmbedder();
  const [query, answer, other, inflected] = embedder.embedSync([
    "What is the secret?",
    "The secret is Svc!",
    "This is irrelevant for the 3-th time.",
    "She bakes braided loaves",
  ]);
  assert.ok(dot(query!, answer!) > 0.4, `shared word: ${dot(query!, answer!)}`);
  assert.ok(dot(query!, other!) < 0.15, `no shared word: ${dot(query!, other!)}`);
  const [baked] = embedder.embedSync(["baked braid loaf"]);
  assert.ok(dot(inflected!, baked!) > 0.3, `stems and n-grams: ${dot(inflected!, baked!)}`);
});

Deno.test("HashEmbedder is lexical, not semantic: synonyms are unrelated", () => {
  const [car, automobile] = new HashEmbedder().embedSync(["car", "automobile"]);
  assert.ok(Math.abs(dot(car!, automobile!)) < 0.2, `similarity ${dot(car!, automobile!)}`);
});

Deno.test("HashEmbedder refuses a dimension below 2 and an aborted signal", async () => {
  assert.throws(() => new HashEmbedder({ dimension: 1 }), RangeError);
  const controller = new AbortController();
  controller.abort(new Error("gone"));
  await assert.rejects(new HashEmbedder().embed(["a"], { signal: controller.signal }), /gone/);
});

Deno.test("HashEmbedder says that it is lexical, not semantic", () => {
  assert.match(new HashEmbedder().description, /^offline, lexical not semantic/);
});

/** Distinct words of letters only, `count` of them from `from`: "bab", "bac", ... */
function lettered(from: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    let n = from + i;
    let word = "";
    do {
      word = "bcdfghjklmnpqrstvwxz"[n % 20]! + "aeiou"[n % 5]! + word;
      n = Math.floor(n / 20);
    } while (n > 0);
    return word;
  });
}

async function digest(vector: Float32Array): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", vector.slice().buffer));
  return Array.from(bytes.slice(0, 8), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

Deno.test("HashEmbedder gives a long text the same vector whatever it embedded before", async () => {
  // 3,000 distinct words and thousands of distinct pairs, most words four times.
  const words = lettered(0, 3000);
  const text = [...words, ...words.toReversed(), ...words.filter((_, i) => i % 2 === 0), ...words]
    .join(" ");
  // The vector of the first implementation, which kept words and pairs in maps.
  const expected = "dedb9ed3d53dcd8a";
  assert.equal(await digest(new HashEmbedder().embedSync([text])[0]!), expected);
  const embedder = new HashEmbedder();
  // More words than it keeps (100,000), forgotten between texts.
  for (let from = 0; from < 120_000; from += 10_000) {
    embedder.embedSync([lettered(from + 5000, 10_000).join(" ")]);
    assert.equal(await digest(embedder.embedSync([text])[0]!), expected, `after ${from}`);
  }
});

Deno.test("PairCounts counts each text's pairs apart, also past the largest int32 of texts", () => {
  const counted = (pairs: PairCounts) => {
    const seen: [number, number][] = [];
    pairs.forEach((hash, count) => seen.push([hash, count]));
    return seen;
  };
  const pairs = new PairCounts(0x7fffffff - 2);
  for (let text = 0; text < 5; text++) {
    pairs.clear();
    for (const hash of [7, -3, 7, 7 + 1024, -3]) pairs.add(hash);
    assert.deepEqual(counted(pairs), [[7, 2], [(-3) >>> 0, 2], [7 + 1024, 1]], `text ${text}`);
  }
  // Enough pairs to grow the table, met in order.
  pairs.clear();
  for (let hash = 0; hash < 3000; hash++) pairs.add(hash * 1024);
  assert.deepEqual(counted(pairs), Array.from({ length: 3000 }, (_, i) => [i * 1024, 1]));
});
