/**
 * Each indexed storage ranks the repository's labelled set
 * (`tests/fixtures/labelled/`) exactly as recorded in
 * `tests/fixtures/labelled_ranks.json`: per question, the rank of the first
 * right passage in the full-text arm, the vector arm and the fusion, the ten
 * best fused passages, and the sources `retrieve()` gives after the budget,
 * the near-duplicates and the neighbours. What moves the engine around must
 * change none of it.
 *
 * `deno test -A --lock=deno.dev.lock --frozen tests/retrieval/labelled_ranks_test.ts -- --record`
 * writes the file again from the storages as they rank now.
 * @module
 */
import assert from "node:assert/strict";
import { LocalDocument } from "../../components/core/document.ts";
import type { Source } from "../../components/core/source.ts";
import { HashEmbedder } from "../../components/embeddings/hash.ts";
import type { IndexedSourceStorage } from "../../components/retrieval/indexed_storage.ts";
import { Chroma } from "../../components/source_storages/chroma.ts";
import { LanceDB } from "../../components/source_storages/lancedb.ts";
import { LibSQL } from "../../components/source_storages/libsql.ts";
import { closePostgres, Postgres } from "../../components/source_storages/postgres.ts";
import { parseQuestions } from "../../cli/_eval_questions.ts";
import { answers, pagesOfLocation, RANK_DEPTH } from "../../cli/_eval_scores.ts";
import { sharedCluster } from "../_postgres.ts";
import { startChroma } from "../source_storages/_chroma.ts";
import { chatParams } from "../source_storages/_helpers.ts";
import { skipPostgres } from "../source_storages/_pgvector.ts";
import { FIXTURES, tmpLocalRoot } from "../test_utils.ts";
import { integration } from "../_tier.ts";

const RECORD = `${FIXTURES}labelled_ranks.json`;
const RECORDING = Deno.args.includes("--record");
const LABELLED = `${FIXTURES}labelled/`;

/** How a question ranks with one storage. */
interface QuestionRanks {
  /** Each ranking's rank of the first right passage, from 1; 0 when none is among the first 10. */
  bm25: number;
  vectors: number;
  fusion: number;
  /** The ten best fused passages, as `document#ordinal`. */
  fused: string[];
  /** The sources `retrieve()` gives, as `document#ordinal` (`#first-last` when joined). */
  sources: string[];
}

/** A storage made for the test, with what it needs started, gone when disposed. */
interface Made extends AsyncDisposable {
  storage: IndexedSourceStorage;
}

const nothing = () => Promise.resolve();

const STORAGES: { label: string; ignore?: (name: string) => boolean; make(): Promise<Made> }[] = [
  {
    label: "LibSQL",
    make: () =>
      Promise.resolve({
        storage: new LibSQL({ embedder: new HashEmbedder() }),
        [Symbol.asyncDispose]: nothing,
      }),
  },
  {
    label: "LanceDB",
    make: () =>
      Promise.resolve({
        storage: new LanceDB({ embedder: new HashEmbedder() }),
        [Symbol.asyncDispose]: nothing,
      }),
  },
  ...[true, false].map((vector) => ({
    label: vector ? "Postgres with pgvector" : "Postgres without pgvector",
    ignore: (name: string) => skipPostgres(name, { vector }),
    async make(): Promise<Made> {
      const cluster = await sharedCluster();
      const database = await cluster.database({ vector });
      return {
        storage: new Postgres({ url: database.url, embedder: new HashEmbedder() }),
        async [Symbol.asyncDispose]() {
          await closePostgres(database.url);
          await cluster.drop(database);
        },
      };
    },
  })),
  {
    label: "Chroma",
    async make(): Promise<Made> {
      const server = await startChroma();
      return {
        storage: new Chroma({ url: server.url, embedder: new HashEmbedder() }),
        [Symbol.asyncDispose]: () => server[Symbol.asyncDispose](),
      };
    },
  },
];

/** How `storage` ranks every question of the labelled set, at the default settings. */
async function ranksOf(storage: IndexedSourceStorage): Promise<QuestionRanks[]> {
  const questions = parseQuestions(
    await Deno.readTextFile(`${LABELLED}questions.json`),
    "questions.json",
  );
  const names = [...new Set(questions.map((question) => question.document))];
  const documents = names.map((name) => LocalDocument.fromPath(`${LABELLED}${name}`));
  const params = chatParams("labelled");
  await storage.store(documents, params);
  const named = (source: Source) =>
    `${source.document.name}#${source.id.split("-").slice(1).join("-")}`;
  const ranks: QuestionRanks[] = [];
  for (const labelled of questions) {
    const { arms, fused } = await storage.rankings(documents, labelled.question, params);
    const rankOf = (ranking: Source[]) =>
      ranking.slice(0, RANK_DEPTH).findIndex((source) =>
        answers({
          document: source.document.name,
          pages: pagesOfLocation(source.location),
          content: source.content,
        }, labelled)
      ) + 1;
    const sources = await storage.retrieve(documents, labelled.question, params);
    ranks.push({
      bm25: rankOf(arms[0]!),
      vectors: rankOf(arms.at(-1)!),
      fusion: rankOf(fused),
      fused: fused.slice(0, RANK_DEPTH).map(named),
      sources: sources.map(named),
    });
  }
  return ranks;
}

/**
 * The record as JSON: one line per question, so that a change shows as the questions it moves; a
 * storage that ranks as one before it does is recorded as that one's label.
 */
function recordText(record: Record<string, QuestionRanks[]>): string {
  const written: [string, string][] = [];
  const storages = Object.entries(record).map(([label, ranks]) => {
    const text = `[\n${
      ranks.map((question) => `    ${JSON.stringify(question)}`).join(",\n")
    }\n  ]`;
    const same = written.find(([, earlier]) => earlier === text);
    if (!same) written.push([label, text]);
    return `  ${JSON.stringify(label)}: ${same ? JSON.stringify(same[0]) : text}`;
  });
  return `{\n${storages.join(",\n")}\n}\n`;
}

/** The recorded ranks of each storage, a storage recorded as another's label given that one's. */
async function readRecord(): Promise<Record<string, QuestionRanks[]>> {
  const file: Record<string, QuestionRanks[] | string> = JSON.parse(
    await Deno.readTextFile(RECORD),
  );
  return Object.fromEntries(
    Object.entries(file).map((
      [label, ranks],
    ) => [label, typeof ranks === "string" ? file[ranks] as QuestionRanks[] : ranks]),
  );
}

const recorded = RECORDING ? {} as Record<string, QuestionRanks[]> : await readRecord();

for (const { label, ignore, make } of STORAGES) {
  const name = `${label} ranks each question of the labelled set as recorded`;
  // Seconds of indexing and 76 questions a storage, PostgreSQL started for two: the whole suite's.
  integration.test({
    name,
    ignore: ignore?.(name) ?? false,
    async fn() {
      await using _root = await tmpLocalRoot();
      await using made = await make();
      const ranks = await ranksOf(made.storage);
      if (RECORDING) {
        recorded[label] = ranks;
        return;
      }
      assert.ok(recorded[label], `${label} has a record in ${RECORD}`);
      assert.equal(ranks.length, recorded[label].length);
      ranks.forEach((question, i) =>
        assert.deepEqual(question, recorded[label]![i], `question ${i}`)
      );
    },
  });
}

if (RECORDING) {
  Deno.test("the ranks are recorded", async () => {
    await Deno.writeTextFile(RECORD, recordText(recorded));
  });
}
