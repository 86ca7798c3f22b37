/**
 * Retrieval at scale: LibSQL, LanceDB and Postgres (each searching the chat's
 * chunks in memory: BM25 postings and vector codes, the codes' best candidates
 * ranked exactly by the stored vectors, the arms fused; Postgres with pgvector
 * and without, on a throw-away cluster when PostgreSQL is installed) next to
 * references that do the least of the same job, measured in the same run on
 * the same chunks.
 *
 * For each size it writes synthetic documents (Zipf-distributed pseudo-words)
 * of about 100 chunks each with the default settings, stores them in one chat
 * with the default (hash) embedder, and measures:
 * - indexing throughput: chunks per second of `store()` (read, hash, parse,
 *   chunk and embed in the worker, write);
 * - query latency, p50 and p99 over 100 queries, of `retrieve()` for the chat
 *   over all chunks and for a chat over 1% of the documents in the same
 *   database (the usual case); and the first `retrieve()` of the chat over
 *   all chunks by a storage opened anew on the same data, which reads what
 *   the storage keeps in memory;
 * - the references, for the same two chats: a bare SQLite FTS5 query of the
 *   chat's chunks alone (its own table, best 100 by `rank`) plus an exact
 *   brute-force scan of the chat's vectors in memory (best 100);
 * - recall@10 of each storage's vector arm against the exact scan's top 10,
 *   for both chats.
 *
 * Sizes: env `SVC_BENCH_CHUNKS` (default `10000,100000`); storages: env
 * `SVC_BENCH_STORAGES` (default all, e.g. `LibSQL,LanceDB`). The table is
 * printed first; `Deno.bench` then times one query of each kind (but
 * Postgres's, whose cluster is stopped once the table is printed). Another
 * storage joins by an entry in `STORAGES`: every storage gets the same
 * documents and is held to the same references.
 */
import { LocalDocument } from "../components/core/document.ts";
import { localRoot } from "../components/core/local_root.ts";
import type { ChatParams } from "../components/core/params.ts";
import { HashEmbedder } from "../components/embeddings/hash.ts";
import { countTokens } from "../components/chunking.ts";
import { DEFAULT_CHUNK_OVERLAP } from "../components/indexing/mod.ts";
import { DEFAULT_NUM_TOKENS } from "../components/retrieval/mod.ts";
import type { IndexedSourceStorage } from "../components/retrieval/indexed_storage.ts";
import { LanceDB } from "../components/source_storages/lancedb.ts";
import { LibSQL } from "../components/source_storages/libsql.ts";
import { closePostgres, Postgres } from "../components/source_storages/postgres.ts";
import { findPostgres, startPostgres } from "../tests/_postgres.ts";
import { topPositions } from "../components/retrieval/positions.ts";
import { queryTerms } from "../components/retrieval/lexical/bm25.ts";
import { type Client, createClient } from "@libsql/client";
import * as lancedb from "npm:@lancedb/lancedb@0.31.0";

const SIZES = (Deno.env.get("SVC_BENCH_CHUNKS") ?? "10000,100000").split(",").map(Number);
const ONLY = Deno.env.get("SVC_BENCH_STORAGES")?.split(",");
const measured = (name: string) => ONLY === undefined || ONLY.includes(name);
const QUERIES = 100;
const CHUNKS_PER_DOCUMENT = 100;
const CHUNK_SIZE = 500;
// What each arm of a storage ranks: the limit of `IndexedSourceStorage.rankings()`.
const RANKED = 100;
const embedder = new HashEmbedder();
// The Postgres storage's cluster, when PostgreSQL is installed, and its databases by run folder.
const postgres = findPostgres() === undefined ? undefined : await startPostgres();
const databases = new Map<string, string>();

/**
 * The storages measured, by name, each given its run's folder to keep its
 * data in (the local root changes from run to run, and every run stays
 * queried until the end).
 */
const STORAGES: Record<string, (folder: string) => IndexedSourceStorage> = {
  // FTS5's BM25 and vector codes in memory (see _libsql_backend.ts).
  LibSQL: (folder) => new LibSQL({ embedder, url: `file:${folder}/libsql/sources.db` }),
  // svc's BM25 and vector codes in memory (see _lancedb_backend.ts); a new LanceDB shares the
  // process's open folder, and what it keeps in memory.
  LanceDB: (folder) => new LanceDB({ embedder, path: `${folder}/lancedb` }),
  // The same in memory, read from PostgreSQL (_postgres_backend.ts), the vectors pgvector's.
  ...postgres?.vector
    ? {
      "Postgres with pgvector": (folder: string) =>
        new Postgres({ embedder, url: databases.get(`${folder} pgvector`)! }),
    }
    : {},
  // The same, the vectors kept as bytes.
  ...postgres
    ? {
      "Postgres without pgvector": (folder: string) =>
        new Postgres({ embedder, url: databases.get(`${folder} no pgvector`)! }),
    }
    : {},
};

interface Chat {
  documents: LocalDocument[];
  params: ChatParams;
}

interface Run {
  name: string;
  /** Where the storages keep their data. */
  folder: string;
  chunks: number;
  /** Seconds that `store()` took for the chat over all documents. */
  seconds: number;
  storage: IndexedSourceStorage;
  all: Chat;
  few: Chat;
  /** The references of the chat over all documents and of the chat over 1%. */
  reference: { all: Reference; few: Reference };
  queries: string[];
}

/** Writes the documents of `size` chunks, stores them in every storage and loads the reference. */
async function prepare(size: number): Promise<Run[]> {
  const folder = await Deno.makeTempDir({ prefix: "svc-retrieval-bench-" });
  folders.push(folder);
  localRoot(folder);
  const random = mulberry32(size);
  const vocabulary = pseudoWords(30_000, random);
  // Words per document for CHUNKS_PER_DOCUMENT chunks: text without sentences
  // is cut into windows of CHUNK_SIZE tokens that follow one another.
  const sample = Array.from({ length: 2000 }, () => zipf(vocabulary, random)).join(" ");
  const tokensPerWord = countTokens(sample) / 2000;
  const words = Math.round((CHUNKS_PER_DOCUMENT * CHUNK_SIZE) / tokensPerWord);
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

  if (postgres) {
    databases.set(`${folder} no pgvector`, (await postgres.database({ vector: false })).url);
    if (postgres.vector) {
      databases.set(`${folder} pgvector`, (await postgres.database({ vector: true })).url);
    }
  }
  const stored: { name: string; storage: IndexedSourceStorage; seconds: number }[] = [];
  for (const [name, make] of Object.entries(STORAGES).filter(([name]) => measured(name))) {
    const storage = make(folder);
    const started = performance.now();
    await storage.store(all.documents, all.params);
    const seconds = (performance.now() - started) / 1000;
    await storage.store(few.documents, few.params);
    stored.push({ name, storage, seconds });
  }

  const reference = {
    all: await Reference.load(folder, "all"),
    few: await Reference.load(folder, "few"),
  };
  const queries = Array.from({ length: QUERIES }, () => {
    const words = reference.all.text(Math.floor(random() * reference.all.size)).split(/\s+/);
    const start = Math.floor(random() * Math.max(1, words.length - 12));
    return words.slice(start, start + 12).join(" ");
  });
  const chunks = reference.all.size;
  return stored.map(({ name, storage, seconds }) => {
    console.log(`${name}: ${chunks} chunks stored in ${seconds.toFixed(1)} s`);
    return { name, folder, chunks, seconds, storage, all, few, reference, queries };
  });
}

async function measure(run: Run): Promise<string> {
  // A storage opened anew reads what it keeps in memory at its first question.
  const [first] = run.queries;
  const fresh = STORAGES[run.name]!(run.folder);
  let started = performance.now();
  await fresh.retrieve(run.all.documents, first!, run.all.params);
  const loading = performance.now() - started;

  const timings = { all: [] as number[], few: [] as number[] };
  const references = { all: [] as number[], few: [] as number[] };
  const recall = { all: 0, few: 0 };
  for (const query of run.queries) {
    for (const chat of ["all", "few"] as const) {
      const { documents, params } = run[chat];
      started = performance.now();
      await run.storage.retrieve(documents, query, params);
      timings[chat].push(performance.now() - started);

      started = performance.now();
      const reference = run.reference[chat];
      await reference.search(query, RANKED);
      const top = (await reference.nearest(query, RANKED)).slice(0, 10);
      references[chat].push(performance.now() - started);

      const { arms } = await run.storage.rankings(documents, query, params);
      // The vector arm is the last (IndexBackend.search).
      const found = new Set(arms.at(-1)!.slice(0, 10).map((source) => source.id));
      recall[chat] += top.filter((id) => found.has(id)).length / top.length / QUERIES;
    }
  }
  const throughput = Math.round(run.chunks / run.seconds).toLocaleString("en");
  const ratio = (chat: "all" | "few") =>
    (median(timings[chat]) / median(references[chat])).toFixed(2);
  return `| ${run.name} | ${run.chunks.toLocaleString("en")} | ${throughput} | ` +
    `${loading.toFixed(0)} | ${spread(timings.all)} | ${spread(references.all)} | ${
      ratio("all")
    } | ` +
    `${spread(timings.few)} | ${spread(references.few)} | ${ratio("few")} | ` +
    `${recall.all.toFixed(3)} / ${recall.few.toFixed(3)} |`;
}

/**
 * The least that retrieving from one chat needs, on every chunk of the chat
 * held by itself: a bare FTS5 query of a table of the chat's chunks alone,
 * and an exact scan of the chat's vectors in memory.
 */
class Reference {
  private constructor(
    private readonly fts: Client,
    private readonly vectors: Float32Array,
    private readonly ids: string[],
    private readonly texts: string[],
  ) {}

  /**
   * The chunks and vectors that a storage stored for a chat: LibSQL's when it
   * is measured, else LanceDB's.
   */
  static async load(folder: string, chat: string): Promise<Reference> {
    const { keys, ordinals, texts, vectors } = measured("LibSQL")
      ? await libsqlChunks(`${folder}/libsql/sources.db`, chat)
      : await lancedbChunks(`${folder}/lancedb`, chat);
    // SQLite's full-text search as svc used it before, in a database of its own.
    const fts = createClient({ url: ":memory:" });
    await fts.execute(
      `CREATE VIRTUAL TABLE chunks USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')`,
    );
    for (let start = 0; start < texts.length; start += 1000) {
      await fts.batch(
        texts.slice(start, start + 1000).map((text) => ({
          sql: `INSERT INTO chunks (text) VALUES (?)`,
          args: [text],
        })),
        "write",
      );
    }
    // The ids the storages give their sources.
    const ids = keys.map((key, i) => `${key.slice(0, 32)}-${ordinals[i]}`);
    return new Reference(fts, vectors, ids, texts);
  }

  get size(): number {
    return this.ids.length;
  }

  text(index: number): string {
    return this.texts[index]!;
  }

  /** The rowids of the best `k` chunks by FTS5's BM25, the query's words (as svc's) OR-ed. */
  async search(query: string, k: number): Promise<number[]> {
    const words = queryTerms(query);
    if (words.length === 0) return [];
    const { rows } = await this.fts.execute({
      sql: `SELECT rowid FROM chunks WHERE chunks MATCH ? ORDER BY rank LIMIT ?`,
      args: [words.map((word) => `"${word}"`).join(" OR "), k],
    });
    return rows.map((row) => Number(row.rowid));
  }

  /** The ids of the `k` nearest vectors by cosine (the vectors have length one). */
  async nearest(query: string, k: number): Promise<string[]> {
    const [vector] = await embedder.embed([query]);
    const dimension = embedder.dimension;
    const scores = new Float64Array(this.size);
    for (let i = 0; i < this.size; i++) {
      let score = 0;
      const offset = i * dimension;
      for (let j = 0; j < dimension; j++) score += this.vectors[offset + j]! * vector![j]!;
      scores[i] = score;
    }
    return topPositions(scores, k, -Infinity).map((index) => this.ids[index]!);
  }
}

/** A chat's stored chunks: each one's index key, ordinal and text, and the vectors end to end. */
interface StoredChunks {
  keys: string[];
  ordinals: number[];
  texts: string[];
  vectors: Float32Array;
}

async function libsqlChunks(path: string, chat: string): Promise<StoredChunks> {
  const client = createClient({ url: `file:${path}` });
  const { rows } = await client.execute({
    sql: `SELECT i.key, c.ordinal, c.text, v.embedding FROM rag_vectors_${embedder.dimension} v
      JOIN rag_chunks c ON c.id = v.chunk_id JOIN rag_indexes i ON i.id = c.index_id
      WHERE i.id IN (SELECT index_id FROM rag_links WHERE chat_id = ?)
      ORDER BY v.chunk_id`,
    args: [chat],
  });
  client.close();
  const vectors = new Float32Array(rows.length * embedder.dimension);
  rows.forEach((row, i) => {
    vectors.set(new Float32Array(row.embedding as ArrayBuffer), i * embedder.dimension);
  });
  return {
    keys: rows.map((row) => String(row.key)),
    ordinals: rows.map((row) => Number(row.ordinal)),
    texts: rows.map((row) => String(row.text)),
    vectors,
  };
}

async function lancedbChunks(path: string, chat: string): Promise<StoredChunks> {
  const db = await lancedb.connect(path);
  const links = await (await db.openTable("links")).query().where(`chat_id = '${chat}'`)
    .toArray();
  const linked = links.map((link) => `'${link.key}'`).join(", ");
  const rows = await (await db.openTable(`chunks_${embedder.dimension}`)).query()
    .where(`key IN (${linked})`).select(["key", "ordinal", "text", "vector"]).toArray();
  db.close();
  const vectors = new Float32Array(rows.length * embedder.dimension);
  rows.forEach((row, i) => vectors.set(row.vector.toArray(), i * embedder.dimension));
  return {
    keys: rows.map((row) => String(row.key)),
    ordinals: rows.map((row) => Number(row.ordinal)),
    texts: rows.map((row) => String(row.text)),
    vectors,
  };
}

function params(chat_id: string): ChatParams {
  return {
    user: "bench",
    chat_id,
    chat_name: chat_id,
    signal: new AbortController().signal,
    chunk_size: CHUNK_SIZE,
    chunk_overlap: DEFAULT_CHUNK_OVERLAP,
    num_tokens: DEFAULT_NUM_TOKENS,
  };
}

function median(samples: number[]): number {
  return [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
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
    `embedder ${embedder.id}, chunk_size ${CHUNK_SIZE}, chunk_overlap ${DEFAULT_CHUNK_OVERLAP}; ` +
    `reference: a bare FTS5 query of the chat's chunks alone + an exact scan of its vectors\n`,
    "| storage | chunks | indexing (chunks/s) | first retrieve, storage opened anew (ms) | " +
    "retrieve p50 / p99 (ms) | reference p50 / p99 (ms) | ratio | " +
    "chat of 1%: retrieve p50 / p99 (ms) | reference p50 / p99 (ms) | ratio | " +
    "recall@10 of the vector arm (all / 1%) |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n"),
);
await closePostgres();
await postgres?.stop();

let next = 0;
for (const run of runs.filter((run) => !run.name.startsWith("Postgres"))) {
  const group = `${run.chunks} chunks`;
  if (run === runs.find((other) => other.chunks === run.chunks)) {
    Deno.bench({
      name: `FTS5 query and exact scan (reference), ${group}`,
      group,
      baseline: true,
      async fn() {
        const query = run.queries[next++ % QUERIES]!;
        await run.reference.all.search(query, RANKED);
        await run.reference.all.nearest(query, RANKED);
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
