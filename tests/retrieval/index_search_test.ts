import assert from "node:assert/strict";
import { HashEmbedder } from "../../components/embeddings/hash.ts";
import {
  type ChunkAt,
  type IndexReads,
  IndexSearch,
  type ReadIndex,
  type StoredPassage,
} from "../../components/retrieval/mod.ts";

const embedder = new HashEmbedder();

/** An index as a store holds it: its key, chunks and vectors. */
interface Stored {
  key: string;
  texts: string[];
  vectors: Float32Array[];
  postings?: Uint8Array;
}

function stored(key: string, texts: string[]): Stored {
  return { key, texts, vectors: embedder.embedSync(texts) };
}

/** A store of indexes in arrays, which counts what search reads of it. */
class ArrayStore implements IndexReads<string, undefined> {
  readonly indexes_ = new Map<string, Stored>();
  readonly counts = { indexes: 0, postings: 0, passages: 0, kept: 0 };
  /** The chunks whose passages were read, as `key/ordinal`. */
  readonly read: string[] = [];
  /** The ids of each read of indexes. */
  readonly groups: string[][] = [];

  constructor(...indexes: Stored[]) {
    for (const index of indexes) this.indexes_.set(index.key, { ...index });
  }

  async *indexes(
    ids: readonly string[],
    options: { dimension: number; postings: boolean },
  ): AsyncGenerator<ReadIndex<string, undefined>> {
    this.groups.push([...ids]);
    for (const id of ids) {
      this.counts.indexes++;
      const index = this.indexes_.get(id);
      if (options.postings && index?.postings) this.counts.postings++;
      yield {
        id,
        passages: index?.texts.map((_text, ordinal) => this.#passage(index, ordinal)) ?? [],
        postings: options.postings ? index?.postings : undefined,
        extra: undefined,
      };
    }
    await Promise.resolve();
  }

  passages(chunks: readonly ChunkAt<string, undefined>[]): Promise<(StoredPassage | undefined)[]> {
    this.counts.passages += chunks.length;
    this.read.push(...chunks.map((chunk) => `${chunk.key}/${chunk.ordinal}`));
    return Promise.resolve(chunks.map((chunk) => {
      const index = this.indexes_.get(chunk.id);
      return index && this.#passage(index, chunk.ordinal);
    }));
  }

  keepPostings(built: readonly { id: string; data: Uint8Array }[]): Promise<void> {
    for (const { id, data } of built) {
      this.counts.kept++;
      this.indexes_.get(id)!.postings = data;
    }
    return Promise.resolve();
  }

  #passage(index: Stored, ordinal: number): StoredPassage {
    return {
      ordinal,
      text: index.texts[ordinal]!,
      pages: JSON.stringify([ordinal + 1]),
      numTokens: 8,
      vector: index.vectors[ordinal],
    };
  }
}

const BREAD = stored("bread", [
  "The winter loaf holds cardamom and rye.",
  "The bakery opens at six in the morning.",
  "Orders for weddings are placed three weeks ahead.",
]);
const GARDEN = stored("garden", [
  "Garlic is planted in October.",
  "The greenhouse roof must be repaired.",
  "The south bed grew the beans.",
]);

function query(text: string, limit = 10) {
  return { text, vector: embedder.embedSync([text])[0]!, limit };
}

function found(...keys: string[]) {
  return () => Promise.resolve(keys.map((key) => ({ id: key, key, cacheKey: key })));
}

Deno.test("IndexSearch ranks the chunks of the keys it is given, and only those, by both arms", async () => {
  const store = new ArrayStore(BREAD, GARDEN);
  const search = new IndexSearch<string>({ reads: store, fullText: "svc" });
  const keys = ["bread"];
  const [text, vector] = await search.search(keys, query("When is garlic planted? cardamom"), {
    find: found("bread"),
  });
  assert.deepEqual(text!.map((chunk) => [chunk.key, chunk.ordinal]), [["bread", 0]]);
  assert.ok(vector!.every((chunk) => chunk.key === "bread"));
  assert.equal(vector!.length, 3);
  assert.deepEqual(vector![0]!.pageNumbers, [1]);
  assert.ok(text![0]!.words && text![0]!.words.length > 0);
});

Deno.test("IndexSearch reads an index once, keeps the postings it built, and reuses a chat's plan", async () => {
  const store = new ArrayStore(BREAD, GARDEN);
  const keys = ["bread", "garden"];
  let finds = 0;
  const options = { find: () => (finds++, found(...keys)()) };
  const first = new IndexSearch<string>({ reads: store, fullText: "svc" });
  const asked = await first.search(keys, query("Which bed grew the beans?"), options);
  assert.deepEqual(asked[0]!.map((chunk) => [chunk.key, chunk.ordinal]), [["garden", 2]]);
  assert.deepEqual(store.counts, { indexes: 2, postings: 0, passages: 0, kept: 2 });
  // Asked again: nothing read, the plan of the same list of keys reused.
  await first.search(keys, query("Which bed grew the beans?"), options);
  assert.deepEqual(store.counts, { indexes: 2, postings: 0, passages: 0, kept: 2 });
  assert.equal(finds, 1);
  // Another state, or a plan forgotten, finds the indexes again; their entries are still kept.
  await first.search(keys, query("roof"), { ...options, state: "later" });
  first.forget();
  await first.search(keys, query("roof"), { ...options, state: "later" });
  assert.equal(finds, 3);
  assert.equal(store.counts.indexes, 2);

  // Another process reads the postings the first kept, rather than building them, and ranks alike.
  const second = new IndexSearch<string>({ reads: store, fullText: "svc" });
  const again = await second.search(keys, query("Which bed grew the beans?"), options);
  assert.deepEqual(store.counts, { indexes: 4, postings: 2, passages: 0, kept: 2 });
  assert.deepEqual(again, asked);
});

Deno.test("IndexSearch takes each key for the id of its index when the store finds none", async () => {
  const store = new ArrayStore(BREAD, GARDEN);
  const search = new IndexSearch<string>({ reads: store, fullText: "svc" });
  const [text] = await search.search(["garden", "bread"], query("Which bed grew the beans?"));
  assert.deepEqual(text!.map((chunk) => [chunk.key, chunk.ordinal]), [["garden", 2]]);
  assert.deepEqual(store.groups, [["bread", "garden"]]);
});

Deno.test("IndexSearch reads the indexes a search first needs some at a time, as many as the store says", async () => {
  const indexes = ["a", "b", "c", "d", "e"].map((key) => stored(key, [`The ${key} loaf.`]));
  const keys = indexes.map((index) => index.key);
  const store = new ArrayStore(...indexes);
  const search = new IndexSearch<string>({ reads: store, fullText: "svc", readAtOnce: 2 });
  await search.search(keys, query("loaf"), { find: found(...keys) });
  assert.deepEqual(store.groups, [["a", "b"], ["c", "d"], ["e"]]);
});

Deno.test("IndexSearch reads the passages it may not keep at each question, each chunk once", async () => {
  const store = new ArrayStore(BREAD, GARDEN);
  const kept = new IndexSearch<string>({ reads: store, fullText: "svc" });
  const unkept = new IndexSearch<string>({ reads: store, fullText: "svc", passageMemory: 0 });
  const keys = ["bread", "garden"];
  const expected = await kept.search(keys, query("bakery wedding orders"), {
    find: found(...keys),
  });
  assert.deepEqual(store.read, []);
  const ranked = await unkept.search(keys, query("bakery wedding orders"), {
    find: found(...keys),
  });
  assert.deepEqual(ranked, expected);
  const returned = new Set(ranked.flat().map((chunk) => `${chunk.key}/${chunk.ordinal}`));
  // The cache keeps the index it was given last however small its budget: the other's are read.
  const read = [...store.read];
  assert.deepEqual(read.sort(), [...returned].filter((name) => name.startsWith("bread/")).sort());
  // Asked again: read again.
  await unkept.search(keys, query("bakery wedding orders"), { find: found(...keys) });
  assert.equal(store.read.length, 2 * read.length);
});

Deno.test("IndexSearch keeps an index prepared and stored: its first question reads nothing", async () => {
  const store = new ArrayStore();
  const search = new IndexSearch<string>({ reads: store, fullText: "fts5" });
  const prepared = await search.prepare(
    {
      chunks: BREAD.texts.map((text, i) => ({ text, pageNumbers: [i + 1], numTokens: 8 })),
      vectors: BREAD.vectors,
      dimension: embedder.dimension,
    },
    { extra: undefined },
  );
  assert.equal(prepared.termCounts.length, 3);
  assert.equal(prepared.totalTerms, prepared.termCounts.reduce((sum, count) => sum + count, 0));
  assert.ok(prepared.postings().byteLength > 0);
  prepared.keep("bread");
  const [text] = await search.search(["bread"], query("wedding orders"), { find: found("bread") });
  assert.deepEqual(text!.map((chunk) => chunk.ordinal), [2]);
  assert.deepEqual(store.counts, { indexes: 0, postings: 0, passages: 0, kept: 0 });
});

Deno.test("IndexSearch keeps nothing of an index prepared and disposed unkept: it is read when searched", async () => {
  const store = new ArrayStore(BREAD);
  const search = new IndexSearch<string>({ reads: store, fullText: "fts5" });
  const prepared = await search.prepare(
    {
      chunks: BREAD.texts.map((text, i) => ({ text, pageNumbers: [i + 1], numTokens: 8 })),
      vectors: BREAD.vectors,
      dimension: embedder.dimension,
    },
    { extra: undefined },
  );
  prepared[Symbol.dispose]();
  // Given back: too late to keep.
  prepared.keep("bread");
  await search.search(["bread"], query("wedding orders"), { find: found("bread") });
  assert.equal(store.counts.indexes, 1);
});

Deno.test("IndexSearch breaks ties by index key, then chunk, whatever order the store found them in", async () => {
  const same = embedder.embedSync(["rye bread"])[0]!;
  const twins = (key: string): Stored => ({
    key,
    texts: ["rye bread", "rye bread"],
    vectors: [same, same],
  });
  const store = new ArrayStore(twins("a"), twins("b"));
  for (const keys of [["a", "b"], ["b", "a"]]) {
    const search = new IndexSearch<string>({ reads: store, fullText: "svc" });
    const [text, vector] = await search.search(keys, query("rye bread"), { find: found(...keys) });
    const names = (chunks: typeof text) => chunks!.map((chunk) => `${chunk.key}${chunk.ordinal}`);
    assert.deepEqual(names(text), ["a0", "a1", "b0", "b1"], `text, found as ${keys}`);
    assert.deepEqual(names(vector), ["a0", "a1", "b0", "b1"], `vectors, found as ${keys}`);
  }
});
