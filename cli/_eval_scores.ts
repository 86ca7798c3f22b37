/**
 * The scores of `svc eval`: how high each question's first right passage ranks, over a set of
 * labelled questions.
 * @module
 */
import { holds, type LabelledQuestion } from "./_eval_questions.ts";

/** A passage that a ranking found: a source of svc, or a page of the baseline. */
export interface Found {
  /** The document's file name. */
  document: string;
  /** Its pages, from 1; empty where the format has no pages. */
  pages: number[];
  /** Its text. */
  content: string;
}

/** How many passages of a ranking count for its reciprocal rank. */
export const RANK_DEPTH = 10;

/** The scores of one ranking of every question. */
export interface Scores {
  /** The share of questions with a right passage first, among the first 3, among the first 5. */
  hitAt1: number;
  hitAt3: number;
  hitAt5: number;
  /** Mean reciprocal rank of the first right passage among the first 10 (0 when none is). */
  mrr: number;
  /** The mean number of pages of the passages that have pages. */
  pagesPerSource: number;
  /** The mean number of passages a question got. */
  sourcesPerQuestion: number;
  /** The questions without a right passage among the first 5, with what was found instead. */
  misses: Miss[];
  /** Each question's rank of its first right passage, from 1; 0 when none is among the first 10. */
  ranks: number[];
  /** The same scores over each document's questions, in the order the documents are first asked about. */
  byDocument: DocumentScores[];
}

/** The scores of the questions about one document. */
export interface DocumentScores {
  document: string;
  /** How many questions are about it. */
  questions: number;
  hitAt1: number;
  hitAt3: number;
  hitAt5: number;
  mrr: number;
}

/** A question without a right passage among the first 5. */
export interface Miss {
  /** Its index in the file. */
  index: number;
  question: LabelledQuestion;
  /** The first three passages found, as `document location`. */
  found: string[];
}

/** Whether a passage answers a question: its document, and its pages or its text. */
export function answers(found: Found, question: LabelledQuestion): boolean {
  if (found.document !== question.document) return false;
  if (question.pages) return found.pages.some((page) => question.pages!.includes(page));
  return holds(found.content, question.text!);
}

/**
 * The scores of rankings, one per question, in the order of the questions.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { score } from "./_eval_scores.ts";
 * const page = (n: number) => ({ document: "a.pdf", pages: [n], content: "" });
 * const questions = [
 *   { question: "First?", document: "a.pdf", pages: [1] },
 *   { question: "Second?", document: "a.pdf", pages: [2] },
 * ];
 * const scores = score(questions, [[page(1)], [page(3), page(2)]]);
 * assert.equal(scores.hitAt1, 0.5);
 * assert.equal(scores.mrr, 0.75);
 * assert.deepEqual(scores.ranks, [1, 2]);
 * assert.equal(scores.byDocument[0]!.questions, 2);
 * ```
 */
export function score(
  questions: readonly LabelledQuestion[],
  rankings: readonly (readonly Found[])[],
): Scores {
  const ranks = questions.map((question, i) =>
    rankings[i]!.slice(0, RANK_DEPTH).findIndex((found) => answers(found, question)) + 1
  );
  const paged = rankings.flat().filter((found) => found.pages.length > 0);
  const documents = [...new Set(questions.map((question) => question.document))];
  return {
    ...rankScores(ranks),
    ranks,
    byDocument: documents.map((document) => {
      const own = ranks.filter((_, i) => questions[i]!.document === document);
      return { document, questions: own.length, ...rankScores(own) };
    }),
    pagesPerSource: mean(paged.map((found) => found.pages.length)),
    sourcesPerQuestion: mean(rankings.map((ranking) => ranking.length)),
    misses: questions.flatMap((question, index) =>
      ranks[index]! > 0 && ranks[index]! <= 5 ? [] : [{
        index,
        question,
        found: rankings[index]!.slice(0, 3).map(describe),
      }]
    ),
  };
}

/** Hit@1, hit@3, hit@5 and MRR of ranks from 1 (0 for none). */
function rankScores(ranks: readonly number[]) {
  const share = (k: number) =>
    ranks.length === 0 ? 0 : ranks.filter((rank) => rank > 0 && rank <= k).length / ranks.length;
  return {
    hitAt1: share(1),
    hitAt3: share(3),
    hitAt5: share(5),
    mrr: mean(ranks.map((rank) => rank > 0 ? 1 / rank : 0)),
  };
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** A passage as `report.pdf p. 2-3`, or its document alone where it has no pages. */
export function describe(found: Found): string {
  return found.pages.length === 0
    ? found.document
    : `${found.document} p. ${pagesText(found.pages)}`;
}

/** Pages as `1-3, 5`. */
export function pagesText(pages: readonly number[]): string {
  const runs: string[] = [];
  const sorted = [...new Set(pages)].sort((a, b) => a - b);
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    runs.push(j > i ? `${sorted[i]}-${sorted[j]}` : String(sorted[i]));
    i = j + 1;
  }
  return runs.join(", ");
}

/**
 * The pages a source's location names: `1-3, 5` is 1, 2, 3 and 5.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pagesOfLocation } from "./_eval_scores.ts";
 * assert.deepEqual(pagesOfLocation("1-3, 5"), [1, 2, 3, 5]);
 * assert.deepEqual(pagesOfLocation(""), []);
 * ```
 */
export function pagesOfLocation(location: string): number[] {
  return location.split(",").map((part) => part.trim()).filter(Boolean).flatMap((part) => {
    const [from, to = from] = part.split("-").map(Number);
    if (!Number.isInteger(from) || !Number.isInteger(to)) return [];
    return Array.from({ length: to! - from! + 1 }, (_, i) => from! + i);
  });
}
