/**
 * Retrieval at scale: LibSQL (hybrid: FTS5 + exact vector scan, fused) and
 * LanceDB (hybrid: its full-text index + exact vector scan, fused) against an
 * exact brute-force scan over the same vectors, in one run.
 *
 * For each size it writes synthetic documents (Zipf-distributed pseudo-words)
 * that cut into that many chunks with the default settings (500/250 tokens),
 * stores them in one chat with the default (hash) embedder, and measures:
 * - indexing throughput: chunks per second of `store()` (read, hash, parse,
 *   chunk and embed in the worker, write);
 * - query latency, p50 and p99 over 100 queries, of `retrieve()` for the chat
 *   over all chunks, of `retrieve()` for a chat over 1% of the documents in
 *   the same database (the usual case), and of the reference: embedding the
 *   query and scanning every vector in memory;
 * - recall@10 of each storage's vector arm against the reference's top 10.
 *
 * Sizes: env `SVC_BENCH_CHUNKS` (default `10000,100000`). The table is
 * printed first; `Deno.bench` then times one query of each kind. Another
 * storage joins by an entry in `STORAGES`: every storage gets the same
 * documents and is held to the same reference.
 */
import { LocalDocument } from "../components/core/document.ts";
import { localRoot } from "../components/core/local_root.ts";
import type { ChatParams } from "../components/core/params.ts";
import { HashEmbedder } from "../components/embeddings/hash.ts";
import { countTokens } from "../components/chunking.ts";
import type { IndexedSourceStorage } from "../components/source_storages/_indexed.ts";
import { LanceDB } from "../components/source_storages/lancedb.ts";
import { LibSQL } from "../components/source_storages/libsql.ts";
import { createClient } from "@libsql/client";

const SIZES = (Deno.env.get("SVC_BENCH_CHUNKS") ?? "10000,100000").split(",").map(Number);
const QUERIES = 100;
const CHUNKS_PER_DOCUMENT = 100;
const embedder = new HashEmbedder();

/**
 * The storages measured, by name, each given its run's folder to keep its
 * data in (the local root changes from run to run, and every run stays
 * queried until the end). LibSQL comes first: the reference reads the vectors
 * it stored.
 */
const STORAGES: Record<string, (folder: string) => IndexedSourceStorage> = {
  LibSQL: (folder) => new LibSQL({ embedder, url: `file:${folder}/libsql/sources.db` }),
  // Full-text index and an exact vector scan; no ANN index (see _lancedb_backend.ts).
  LanceDB: (folder) => new LanceDB({ embedder, path: `${folder}/lancedb` }),
};

interface Chat {
  documents: LocalDocument[];
  params: ChatParams;
}

interface Run {
  name: string;
  chunks: number;
  /** Seconds that `store()` took for the chat over all documents. */
  seconds: number;
  storage: IndexedSourceStorage;
  all: Chat;
  few: Chat;
  reference: Reference;
  queries: string[];
}

/** Writes the documents of `size` chunks, stores them in every storage and loads the reference. */
async function prepare(size: number): Promise<Run[]> {
  const folder = await Deno.makeTempDir({ prefix: "svc-retrieval-bench-" });
  folders.push(folder);
  localRoot(folder);
  const random = mulberry32(size);
  const vocabulary = pseudoWords(30_000, random);
  // Words per document for CHUNKS_PER_DOCUMENT chunks of 500 tokens every 250.
  const sample = Array.from({ length: 2000 }, () => zipf(vocabulary, random)).join(" ");
  const tokensPerWord = countTokens(sample) / 2000;
  const words = Math.round(((CHUNKS_PER_DOCUMENT + 1) * 250) / tokensPerWord);
  const documents: LocalDocument[] = [];
  for (let i = 0; i < Math.ceil(size / CHUNKS_PER_DOCUMENT); i++) {
    const text = Array.from({ length: words }, () => zipf(vocabulary, random)).join(" ");
    const path = `${folder}/document_${i}.txt`;
    await Deno.writeTextFile(path, text);
    documents.push(LocalDocument.fromPath(path, { id: `document-${i}` }));
  }
  const all = { documents, params: params("all") };
  const few = {
    documents: documents.slice(0, Math.max(1, documents.length / 100)),
    params: params("few"),
  };

  const stored: { name: string; storage: IndexedSourceStorage; seconds: number }[] = [];
  for (const [name, make] of Object.entries(STORAGES)) {
    const storage = make(folder);
    const started = performance.now();
    await storage.store(all.documents, all.params);
    const seconds = (performance.now() - started) / 1000;
    await storage.store(few.documents, few.params);
    stored.push({ name, storage, seconds });
  }

  const reference = await Reference.load(`${folder}/libsql/sources.db`);
  const queries = Array.from({ length: QUERIES }, () => {
    const words = reference.text(Math.floor(random() * reference.size)).split(/\s+/);
    const start = Math.floor(random() * Math.max(1, words.length - 12));
    return words.slice(start, start + 12).join(" ");
  });
  return stored.map(({ name, storage, seconds }) => {
    console.log(`${name}: ${reference.size} chunks stored in ${seconds.toFixed(1)} s`);
    return { name, chunks: reference.size, seconds, storage, all, few, reference, queries };
  });
}

async function measure(run: Run): Promise<string> {
  const retrieve: number[] = [];
  const few: number[] = [];
  const exact: number[] = [];
  let recall = 0;
  for (const query of run.queries) {
    let started = performance.now();
    await run.storage.retrieve(run.all.documents, query, run.all.params);
    retrieve.push(performance.now() - started);

    started = performance.now();
    await run.storage.retrieve(run.few.documents, query, run.few.params);
    few.push(performance.now() - started);

    started = performance.now();
    const top = await run.reference.top(query, 10);
    exact.push(performance.now() - started);

    const { arms } = await run.storage.rankings(run.all.documents, query, run.all.params);
    // The vector arm is the last (IndexBackend.search).
    const found = new Set(arms.at(-1)!.slice(0, 10).map((source) => source.id));
    recall += top.filter((id) => found.has(id)).length / top.length;
  }
  const throughput = Math.round(run.chunks / run.seconds).toLocaleString("en");
  return `| ${run.name} | ${run.chunks.toLocaleString("en")} | ${throughput} | ` +
    `${spread(retrieve)} | ${spread(few)} | ${spread(exact)} | ${(recall / QUERIES).toFixed(3)} |`;
}

/** Every stored vector in memory, scanned exactly: the reference. */
class Reference {
  private constructor(
    private readonly vectors: Float32Array,
    private readonly ids: string[],
    private readonly texts: string[],
  ) {}

  static async load(path: string): Promise<Reference> {
    const client = createClient({ url: `file:${path}` });
    const { rows } = await client.execute(
      `SELECT i.key, c.ordinal, c.text, v.embedding FROM rag_vectors_${embedder.dimension} v
        JOIN rag_chunks c ON c.id = v.chunk_id JOIN rag_indexes i ON i.id = c.index_id
        ORDER BY v.chunk_id`,
    );
    client.close();
    const vectors = new Float32Array(rows.length * embedder.dimension);
    rows.forEach((row, i) => {
      vectors.set(new Float32Array(row.embedding as ArrayBuffer), i * embedder.dimension);
    });
    // The ids LibSQL gives its sources.
    const ids = rows.map((row) => `${String(row.key).slice(0, 32)}-${row.ordinal}`);
    return new Reference(vectors, ids, rows.map((row) => String(row.text)));
  }

  get size(): number {
    return this.ids.length;
  }

  text(index: number): string {
    return this.texts[index]!;
  }

  /** The ids of the `k` nearest vectors by cosine (the vectors have length one). */
  async top(query: string, k: number): Promise<string[]> {
    const [vector] = await embedder.embed([query]);
    const dimension = embedder.dimension;
    const best: { index: number; score: number }[] = [];
    for (let i = 0; i < this.size; i++) {
      let score = 0;
      const offset = i * dimension;
      for (let j = 0; j < dimension; j++) score += this.vectors[offset + j]! * vector![j]!;
      if (best.length < k || score > best.at(-1)!.score) {
        best.push({ index: i, score });
        best.sort((a, b) => b.score - a.score || a.index - b.index);
        if (best.length > k) best.pop();
      }
    }
    return best.map(({ index }) => this.ids[index]!);
  }
}

function params(chat_id: string): ChatParams {
  return {
    user: "bench",
    chat_id,
    chat_name: chat_id,
    signal: new AbortController().signal,
    chunk_size: 500,
    chunk_overlap: 250,
    num_tokens: 1024,
  };
}

function spread(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return `${at(0.5).toFixed(1)} / ${at(0.99).toFixed(1)}`;
}

/**
 * A vocabulary by rank: English function words first, as in English text,
 * where they are the most frequent; then pseudo-words of one to three syllables.
 */
function pseudoWords(count: number, random: () => number): string[] {
  const common = ("the of and to in is that for it as was with be by on not he this are or his " +
    "from at which but have an they you were her she there one all we their").split(" ");
  const syllables = "ka lo mi ren tas vo pel dri sun mar te bo gri ne fa lu zor qui ha ost"
    .split(" ");
  return [
    ...common,
    ...Array.from({ length: count - common.length }, () =>
      Array.from(
        { length: 1 + Math.floor(random() * 3) },
        () => syllables[Math.floor(random() * syllables.length)],
      ).join("")),
  ];
}

/** A word drawn with probability about 1 / rank (Zipf's law). */
function zipf(words: string[], random: () => number): string {
  return words[Math.floor(Math.exp(random() * Math.log(words.length))) - 1]!;
}

/** A small seeded generator, so that every run writes the same documents. */
function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Last, since the classes above must be initialised before the top-level code runs.
const folders: string[] = [];
const runs: Run[] = [];
const rows: string[] = [];
for (const size of SIZES) {
  for (const run of await prepare(size)) {
    runs.push(run);
    rows.push(await measure(run));
  }
}
console.log(
  [
    `\nRetrieval, ${navigator.hardwareConcurrency} cores, ${Deno.build.target}, ` +
    `embedder ${embedder.id}, chunk_size 500, chunk_overlap 250\n`,
    "| storage | chunks | indexing (chunks/s) | retrieve p50 / p99 (ms) | " +
    "chat of 1% p50 / p99 (ms) | exact scan p50 / p99 (ms) | recall@10 of the vector arm |",
    "|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n"),
);

let next = 0;
for (const run of runs) {
  const group = `${run.chunks} chunks`;
  if (run === runs.find((other) => other.chunks === run.chunks)) {
    Deno.bench({
      name: `exact scan (reference), ${group}`,
      group,
      baseline: true,
      async fn() {
        await run.reference.top(run.queries[next++ % QUERIES]!, 10);
      },
    });
  }
  for (const [chat, label] of [[run.all, group], [run.few, `1% of ${group}`]] as const) {
    Deno.bench({
      name: `${run.name} retrieve, chat of ${label}`,
      group,
      async fn() {
        await run.storage.retrieve(chat.documents, run.queries[next++ % QUERIES]!, chat.params);
      },
    });
  }
}

globalThis.addEventListener("unload", () => {
  for (const folder of folders) Deno.removeSync(folder, { recursive: true });
});
