import assert from "node:assert/strict";
import { LocalDocument } from "../../components/core/document.ts";
import type { Source } from "../../components/core/source.ts";
import { Message } from "../../components/core/message.ts";
import { countTokens } from "../../components/token_counts.ts";
import { HashEmbedder } from "../../components/embeddings/hash.ts";
import type { SearchQuery, StoredChunk } from "../../components/indexing/mod.ts";
import { type RankedStore, Retriever } from "../../components/retrieval/mod.ts";

/** A store of one index's chunks whose arms give them in the order given, and which keeps the queries. */
class ListStore implements RankedStore {
  readonly queries: SearchQuery[] = [];
  constructor(readonly stored: StoredChunk[]) {}

  search(_keys: readonly string[], query: SearchQuery): Promise<StoredChunk[][]> {
    this.queries.push(query);
    return Promise.resolve([this.stored, [...this.stored].reverse()]);
  }

  chunks(): Promise<StoredChunk[]> {
    return Promise.resolve(this.stored);
  }
}

/** The hash embedder, counting the texts it embeds. */
class CountingEmbedder extends HashEmbedder {
  embedded = 0;
  override embed(texts: string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]> {
    this.embedded += texts.length;
    return super.embed(texts, options);
  }
}

function chunk(ordinal: number, text: string, page = 1): StoredChunk {
  return { key: "k", ordinal, text, pageNumbers: [page], numTokens: countTokens(text) };
}

const documents = new Map([["k", LocalDocument.fromPath("bakery.md")]]);

Deno.test("Retriever.rank() ranks nothing of a chat without indexes, and embeds nothing", async () => {
  const embedder = new CountingEmbedder();
  const store = new ListStore([chunk(0, "Rye bread")]);
  const rankings = await new Retriever().rank(store, embedder, {
    documents: new Map(),
    prompt: "Rye?",
    numTokens: 100,
    chunkSize: 50,
  });
  assert.deepEqual([rankings.arms, rankings.fused], [[], []]);
  assert.deepEqual([embedder.embedded, store.queries.length], [0, 0]);
});

Deno.test("Retriever.rank() searches a follow-up with the question it follows, deeper for a larger budget", async () => {
  const store = new ListStore([chunk(0, "Rye bread rests for twelve hours.")]);
  const retriever = new Retriever();
  const history = [
    new Message("How long does rye dough rest?", { role: "user" }),
    new Message("Twelve hours.", { role: "assistant" }),
  ];
  const question = { documents, numTokens: 100, chunkSize: 50 };
  await retriever.rank(store, new HashEmbedder(), {
    ...question,
    prompt: "And the wheat?",
    history,
  });
  await retriever.rank(store, new HashEmbedder(), {
    ...question,
    prompt: "Rye?",
    numTokens: 20_000,
  });
  assert.deepEqual(store.queries.map((query) => [query.text, query.limit]), [
    ["How long does rye dough rest?\nAnd the wheat?", 100],
    ["Rye?", 800],
  ]);
  const [vector] = new HashEmbedder().embedSync(["How long does rye dough rest?\nAnd the wheat?"]);
  assert.deepEqual(store.queries[0]!.vector, vector);
});

Deno.test("Retriever.choose() fills num_tokens best first, leaves out a repeat and joins neighbours of a page", async () => {
  const stored = [
    chunk(0, "The winter loaf holds cardamom."),
    chunk(1, "It bakes for an hour at two hundred degrees."),
    chunk(2, "Orders for weddings are placed three weeks ahead.", 2),
    chunk(3, "The winter loaf holds cardamom!", 3),
    chunk(4, "The bakery is closed on Mondays, and opens at six in the morning on other days.", 4),
  ];
  const source = new Map(stored.map((passage): [StoredChunk, Source] => [passage, {
    id: `k-${passage.ordinal}`,
    document: documents.get("k")!,
    location: String(passage.pageNumbers[0]),
    content: passage.text,
    numTokens: passage.numTokens,
  }]));
  const passageOf = new Map([...source].map(([passage, made]) => [made, passage]));
  const fused = [0, 3, 1, 4, 2].map((ordinal) => source.get(stored[ordinal]!)!);
  const numTokens = [0, 1, 2].reduce((sum, ordinal) => sum + stored[ordinal]!.numTokens, 0);
  assert.ok(stored[4]!.numTokens > stored[2]!.numTokens);
  const sources = await new Retriever().choose({
    arms: [],
    fused,
    numTokens,
    passageOf: (made) => passageOf.get(made)!,
  });
  // 3 repeats 0 and takes no room; 4 does not fit after 0 and 1, 2 does; 0 and 1 are one page's.
  assert.deepEqual(sources.map((made) => made.id), ["k-0-1", "k-2"]);
  for (const made of sources) assert.equal(made.numTokens, countTokens(made.content));
  assert.equal(sources[0]!.location, "1");
  assert.match(sources[0]!.content, /cardamom\.\s+It bakes/);
});
