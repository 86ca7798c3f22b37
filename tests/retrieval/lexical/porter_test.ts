import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { LocalDocument } from "../../../components/core/document.ts";
import { readPages } from "../../../components/documents/pages.ts";
import { porterStem } from "../../../components/retrieval/lexical/porter.ts";
import { FTS5 } from "../../../components/retrieval/lexical/term_postings.ts";
import "../../../components/registry.ts";
import { FIXTURES } from "../../test_utils.ts";

/** The fixtures whose text the stems are compared on: every readable document, and the questions. */
async function fixtureTexts(): Promise<string[]> {
  const texts: string[] = [];
  for (const folder of ["", "labelled/"]) {
    for await (const entry of Deno.readDir(`${FIXTURES}${folder}`)) {
      if (
        !/\.(pdf|docx|pptx|md|txt)$/.test(entry.name) ||
        /^(truncated|encrypted|not_a|bomb)/.test(entry.name)
      ) continue;
      const pages = await readPages(LocalDocument.fromPath(`${FIXTURES}${folder}${entry.name}`));
      texts.push(...pages.map((page) => page.text));
    }
  }
  const questions = JSON.parse(await Deno.readTextFile(`${FIXTURES}labelled/questions.json`));
  return [...texts, ...questions.map((labelled: { question: string }) => labelled.question)];
}

/** FTS5's porter stem of each token, as its vocabulary table gives it. */
function fts5Stems(tokens: readonly string[]): string[] {
  const database = new DatabaseSync(":memory:");
  try {
    database.exec(
      `CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`,
    );
    const insert = database.prepare("INSERT INTO t (rowid, x) VALUES (?, ?)");
    database.exec("BEGIN");
    tokens.forEach((token, i) => insert.run(i + 1, token));
    database.exec("COMMIT");
    const stems = new Array<string>(tokens.length);
    for (const row of database.prepare("SELECT doc, term FROM v").all()) {
      stems[Number(row.doc) - 1] = String(row.term);
    }
    return stems;
  } finally {
    database.close();
  }
}

Deno.test("porterStem() stems as FTS5's porter tokenizer every ASCII word of the fixtures and the labelled set", async () => {
  const words = new Set<string>();
  for (const text of await fixtureTexts()) {
    for (const word of FTS5.words(text)) if (/^[a-z0-9]+$/.test(word)) words.add(word);
  }
  // FTS5 leaves tokens of fewer than 3 or more than 64 characters as they are.
  const longest = "x".repeat(58) + "ations";
  const tokens = [...words, "ab", "ies", longest, `x${longest}`];
  assert.ok(tokens.length > 3_000, `${tokens.length} words`);
  const expected = fts5Stems(tokens);
  const differ = tokens.filter((token, i) => porterStem(token) !== expected[i]);
  assert.deepEqual(differ, []);
  assert.equal(porterStem(longest), longest.slice(0, -1));
  assert.equal(porterStem(`x${longest}`), `x${longest}`);
});
