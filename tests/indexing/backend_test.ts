import assert from "node:assert/strict";
import {
  checkedDimension,
  contentHash,
  indexInfo,
  type IndexSettings,
  storedChunk,
} from "../../components/indexing/backend.ts";

Deno.test("indexInfo() keys a user's index apart, and a shared one by its settings alone", async () => {
  const settings: IndexSettings = {
    contentHash: "ab".repeat(32),
    chunkSize: 500,
    chunkOverlap: 250,
    embedder: "svc/hash-v1-512",
    dimension: 512,
  };
  const shared = await indexInfo(settings);
  const ada = await indexInfo({ ...settings, owner: "ada" });
  const bob = await indexInfo({ ...settings, owner: "bob" });
  assert.equal(new Set([shared.key, ada.key, bob.key]).size, 3);
  assert.equal((await indexInfo({ ...settings, owner: "ada" })).key, ada.key);
  // "v3": a slide starts a chunk; indexes of "v2" (chunks across slides) and of the token windows
  // of "v1" are not taken for them.
  assert.equal(
    shared.key,
    await sha256(
      JSON.stringify(["svc-index-v3", settings.contentHash, 500, 250, settings.embedder, 512]),
    ),
  );
});

Deno.test("contentHash() is the SHA-256 of the bytes, in hex", async () => {
  assert.equal(
    await contentHash(new TextEncoder().encode("abc")),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

Deno.test("storedChunk() reads a chunk's row as each store gives it back", () => {
  const chunk = { key: "k", ordinal: 3, text: "Rye", pageNumbers: [4, 5], numTokens: 2 };
  // libSQL and LanceDB: pages as JSON text; PostgreSQL: an array; numbers of any type.
  assert.deepEqual(
    storedChunk("k", { ordinal: 3, text: "Rye", page_numbers: "[4,5]", num_tokens: 2 }),
    chunk,
  );
  assert.deepEqual(
    storedChunk("k", { ordinal: 3n, text: "Rye", page_numbers: [4, "5"], num_tokens: "2" }),
    chunk,
  );
});

Deno.test("checkedDimension() names a dimension that no table may be named by", () => {
  assert.equal(checkedDimension(512), 512);
  for (const dimension of [0, -1, 1.5, Number.NaN]) {
    assert.throws(() => checkedDimension(dimension), {
      name: "RangeError",
      message: `A vector dimension must be a positive integer, not ${dimension}`,
    });
  }
});
