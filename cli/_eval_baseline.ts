/**
 * The baseline of `svc eval`: a plain full-text search over whole pages, to tell whether svc's
 * retrieval finds the right page better than the simplest search would.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import type { Page } from "../components/core/page.ts";
import { type Found, RANK_DEPTH } from "./_eval_scores.ts";

/**
 * BM25 over whole pages: SQLite FTS5 with the porter tokenizer, one row per page (a document
 * without pages is one row), searched with the question's words OR-ed. Gives the best
 * {@linkcode RANK_DEPTH} pages for each question.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pageBm25 } from "./_eval_baseline.ts";
 * const pages = new Map([["a.pdf", [
 *   { number: 1, text: "The bakery opens at six." },
 *   { number: 2, text: "It is closed on Mondays." },
 * ]]]);
 * const [ranking] = pageBm25(pages, ["When is it closing?"]);
 * assert.deepEqual(ranking![0]!.pages, [2]);
 * ```
 */
export function pageBm25(
  pagesOf: ReadonlyMap<string, readonly Page[]>,
  questions: readonly string[],
): Found[][] {
  const database = new DatabaseSync(":memory:");
  try {
    database.exec(
      "CREATE VIRTUAL TABLE pages USING fts5(text, document UNINDEXED, number UNINDEXED, " +
        "tokenize = 'porter unicode61')",
    );
    const insert = database.prepare("INSERT INTO pages (text, document, number) VALUES (?, ?, ?)");
    for (const [document, pages] of pagesOf) {
      for (const page of pages) insert.run(page.text, document, page.number);
    }
    const search = database.prepare(
      "SELECT text, document, number FROM pages WHERE pages MATCH ? ORDER BY bm25(pages) LIMIT ?",
    );
    return questions.map((question) => {
      const words = question.match(/[\p{L}\p{N}]+/gu) ?? [];
      if (words.length === 0) return [];
      const query = words.map((word) => `"${word}"`).join(" OR ");
      return search.all(query, RANK_DEPTH).map((row) => ({
        document: String(row.document),
        pages: row.number === null ? [] : [Number(row.number)],
        content: String(row.text),
      }));
    });
  } finally {
    database.close();
  }
}
