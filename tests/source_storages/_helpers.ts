/**
 * Helpers shared by the source storage tests: chat parameters, copies of
 * fixtures, a small labelled set of questions over the fixtures, and the
 * scores of a storage's rankings on the repository's labelled set.
 * @module
 */
import { copyFile } from "node:fs/promises";
import { LocalDocument } from "../../components/core/document.ts";
import type { ChatParams } from "../../components/core/params.ts";
import type { Source } from "../../components/core/source.ts";
import { HashEmbedder } from "../../components/embeddings/hash.ts";
import type { IndexInfo, NewIndex, SearchQuery } from "../../components/indexing/mod.ts";
import type { IndexedSourceStorage } from "../../components/retrieval/indexed_storage.ts";
import { parseQuestions } from "../../cli/_eval_questions.ts";
import { answers as isAnswer, pagesOfLocation, RANK_DEPTH } from "../../cli/_eval_scores.ts";
import { FIXTURES } from "../test_utils.ts";

/** The parameters of a chat, with the storage parameters given (defaults otherwise). */
export function chatParams(chatId: string, params: Record<string, unknown> = {}): ChatParams {
  return {
    user: "ada",
    chat_id: chatId,
    chat_name: `Chat ${chatId}`,
    signal: new AbortController().signal,
    ...params,
  };
}

/** A document of a copy of a fixture in `folder`, so that a test may delete it. */
export async function copiedFixture(folder: string, name: string): Promise<LocalDocument> {
  await copyFile(`${FIXTURES}${name}`, `${folder}/${name}`);
  return LocalDocument.fromPath(`${folder}/${name}`, { id: `id-of-${name}` });
}

/**
 * `report.pdf` and `guide.md` copied into `folder` and stored for the chat in small passages, as
 * the tests of a backend's search start.
 */
export async function storedFixtures(
  folder: string,
  storage: IndexedSourceStorage,
  chatId: string,
): Promise<{ report: LocalDocument; guide: LocalDocument; params: ChatParams }> {
  const report = await copiedFixture(folder, "report.pdf");
  const guide = await copiedFixture(folder, "guide.md");
  const params = chatParams(chatId, { chunk_size: 8, chunk_overlap: 2 });
  await storage.store([report, guide], params);
  return { report, guide, params };
}

/** A question as a backend searches for it: its text, its offline embedding, the best 100. */
export function searchQuery(text: string): SearchQuery {
  const [vector] = new HashEmbedder().embedSync([text]);
  return { text, vector: vector!, limit: 100 };
}

/** The keys of the indexes a backend links the chat's documents to. */
export async function linkedKeys(
  backend: { links(chatId: string): Promise<Map<string, IndexInfo>> },
  chatId: string,
): Promise<string[]> {
  return [...(await backend.links(chatId)).values()].map((info) => info.key);
}

/** Questions about `report.pdf`, each with the page that answers it. */
export const PDF_QUESTIONS: readonly [string, string][] = [
  ["In which year did the Lindenbaum Bakery open?", "1"],
  ["How many loaves are sold every morning?", "1"],
  ["What is the secret ingredient of the winter loaf?", "2"],
  ["How long does the dough rest?", "2"],
  ["On which day is the bakery closed?", "3"],
  ["How far ahead must orders for weddings be placed?", "3"],
];

/** A question, the fixture that answers it, and words of the answer. */
export interface Labelled {
  question: string;
  document: string;
  answer: string;
}

/**
 * Questions over the fixtures, each with the document and the words that
 * answer it. Some share words with their answer, some only stems or spellings
 * ("founded", "founder"), some hinge on a rare word ("120", "Oduya").
 */
export const LABELLED: readonly Labelled[] = [
  { question: "When did the Lindenbaum Bakery open?", document: "report.pdf", answer: "1952" },
  { question: "Who founded the bakery?", document: "report.pdf", answer: "Greta" },
  {
    question: "What kind of oven does the bakery use?",
    document: "report.pdf",
    answer: "wood-fired",
  },
  { question: "Where is the bakery located?", document: "report.pdf", answer: "Mill" },
  {
    question: "How many loaves does the bakery sell each morning?",
    document: "report.pdf",
    answer: "four hundred",
  },
  { question: "What bread did the founder bake?", document: "report.pdf", answer: "rye" },
  {
    question: "Which spice is the secret ingredient of the winter loaf?",
    document: "report.pdf",
    answer: "cardamom",
  },
  {
    question: "In which month is the winter loaf baked?",
    document: "report.pdf",
    answer: "December",
  },
  {
    question: "How long does the dough rest before braiding?",
    document: "report.pdf",
    answer: "twelve hours",
  },
  {
    question: "On which day of the week is the bakery closed?",
    document: "report.pdf",
    answer: "Mondays",
  },
  {
    question: "How far ahead must wedding orders be placed?",
    document: "report.pdf",
    answer: "three weeks",
  },
  {
    question: "What time does the bakery open in the morning?",
    document: "report.pdf",
    answer: "six in the morning",
  },
  { question: "Until when is the bakery open?", document: "report.pdf", answer: "two in the" },
  { question: "When does the catalogue ship?", document: "notes.docx", answer: "first of April" },
  { question: "Where does the printing move to?", document: "notes.docx", answer: "Riverside" },
  { question: "Where are the photos taken?", document: "notes.docx", answer: "new studio" },
  { question: "Who owns the cover design?", document: "notes.docx", answer: "Ana" },
  { question: "When is the price list due?", document: "notes.docx", answer: "March 10" },
  { question: "Who is responsible for the price list?", document: "notes.docx", answer: "Ben" },
  { question: "On which day did the team meet?", document: "notes.docx", answer: "Tuesday" },
  { question: "How many decisions were made?", document: "notes.docx", answer: "Three decisions" },
  {
    question: "How many kilograms of tomatoes were harvested?",
    document: "slides.pptx",
    answer: "120",
  },
  { question: "Which bed grew the beans?", document: "slides.pptx", answer: "South" },
  { question: "When should garlic be planted?", document: "slides.pptx", answer: "October" },
  {
    question: "Who led the quarterly review of the garden project?",
    document: "slides.pptx",
    answer: "Oduya",
  },
  { question: "What has to be repaired?", document: "slides.pptx", answer: "greenhouse roof" },
  { question: "How do I start the service?", document: "guide.md", answer: "svc api" },
  { question: "How do I stop the service?", document: "guide.md", answer: "Ctrl+C" },
];

/** The fixtures the labelled set asks about. */
export const LABELLED_FIXTURES: readonly string[] = [
  "report.pdf",
  "notes.docx",
  "slides.pptx",
  "guide.md",
];

/** Where the repository's labelled set lies: real documents, questions in other words. */
const LABELLED_SET = new URL("../fixtures/labelled/", import.meta.url).pathname;

/** Hit@3 and MRR (over the first 10) of one ranking per question. */
export interface SetScores {
  hitAt3: number;
  mrr: number;
}

/** What {@linkcode labelledScores} measures: each arm alone and the fusion. */
export interface LabelledScores {
  bm25: SetScores;
  vectors: SetScores;
  fusion: SetScores;
}

/**
 * Stores the documents of the repository's labelled set
 * (`tests/fixtures/labelled/`) in a chat and scores the full-text arm, the
 * vector arm and their fusion on its questions, as `svc eval` scores them.
 */
export async function labelledScores(
  storage: IndexedSourceStorage,
  params: ChatParams,
): Promise<LabelledScores> {
  const questions = parseQuestions(
    await Deno.readTextFile(`${LABELLED_SET}questions.json`),
    "questions.json",
  );
  const names = [...new Set(questions.map((question) => question.document))];
  const documents = names.map((name) => LocalDocument.fromPath(`${LABELLED_SET}${name}`));
  await storage.store(documents, params);
  const rankings = { bm25: [] as Source[][], vectors: [] as Source[][], fusion: [] as Source[][] };
  for (const { question } of questions) {
    const { arms, fused } = await storage.rankings(documents, question, params);
    rankings.bm25.push(arms[0]!);
    rankings.vectors.push(arms.at(-1)!);
    rankings.fusion.push(fused);
  }
  const scoreOf = (ranked: Source[][]): SetScores => {
    const ranks = ranked.map((ranking, i) =>
      ranking.slice(0, RANK_DEPTH).findIndex((source) =>
        isAnswer({
          document: source.document.name,
          pages: pagesOfLocation(source.location),
          content: source.content,
        }, questions[i]!)
      ) + 1
    );
    return {
      hitAt3: ranks.filter((rank) => rank > 0 && rank <= 3).length / ranks.length,
      mrr: ranks.reduce((sum, rank) => sum + (rank > 0 ? 1 / rank : 0), 0) / ranks.length,
    };
  };
  return {
    bm25: scoreOf(rankings.bm25),
    vectors: scoreOf(rankings.vectors),
    fusion: scoreOf(rankings.fusion),
  };
}

/** A deterministic vector of `dimension` values in [-0.5, 0.5). */
export function randomVectors(count: number, dimension: number, seed: number): Float32Array[] {
  let state = seed;
  const next = () => (state = (state * 16807) % 2147483647) / 2147483647 - 0.5;
  return Array.from({ length: count }, () => Float32Array.from({ length: dimension }, next));
}

/** An index of `count` short chunks with deterministic random vectors, for a backend's `add()`. */
export function randomIndex(key: string, count: number, dimension: number, seed: number): NewIndex {
  const chunks = Array.from({ length: count }, (_, i) => ({
    text: `chunk ${i} of ${key}`,
    pageNumbers: [1],
    numTokens: 4,
  }));
  return {
    key,
    contentHash: key,
    chunkSize: 500,
    chunkOverlap: 100,
    embedder: "test",
    dimension,
    chunks,
    vectors: randomVectors(count, dimension, seed),
  } as unknown as NewIndex;
}
