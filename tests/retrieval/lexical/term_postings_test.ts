import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { Bm25Index, bm25Search, queryTerms } from "../../../components/retrieval/lexical/bm25.ts";
import {
  FTS5,
  OWN_BM25,
  QueryScoring,
  rankPostings,
  TermPostings,
} from "../../../components/retrieval/lexical/term_postings.ts";
import { wordKeys } from "../../../components/retrieval/proximity.ts";
import { FIXTURES } from "../../test_utils.ts";
import { LABELLED } from "../../source_storages/_helpers.ts";

const BAKERY = [
  "The bakery opens at six.",
  "The winter loaf holds cardamom, and cardamom is its secret.",
  "Cardamom once.",
  "Rye bread and the bakery.",
];

Deno.test("rankPostings() ranks as an FTS5 table of the same chunks: the same chunks, order and scores", async () => {
  // Paragraphs of a real README and of the fixtures, asked the labelled set's questions.
  const paragraphs = [
    await Deno.readTextFile(`${FIXTURES}labelled/commander.md`),
    await Deno.readTextFile(`${FIXTURES}guide.md`),
    BAKERY.join("\n\n"),
  ].flatMap((text) => text.split(/\n\s*\n/)).filter((paragraph) => paragraph.trim() !== "");
  const questions = [
    ...JSON.parse(await Deno.readTextFile(`${FIXTURES}labelled/questions.json`)),
    ...LABELLED,
  ].map((labelled: { question: string }) => labelled.question);
  const client = createClient({ url: ":memory:" });
  try {
    await client.execute(
      `CREATE VIRTUAL TABLE chunks USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')`,
    );
    await client.batch(
      paragraphs.map((text) => ({ sql: `INSERT INTO chunks (text) VALUES (?)`, args: [text] })),
      "write",
    );
    const half = Math.floor(paragraphs.length / 2);
    const postings = [paragraphs.slice(0, half), paragraphs.slice(half)]
      .map((texts) => TermPostings.build(texts, FTS5));
    const built = await Promise.all(postings);
    for (const question of [...questions, "running runs ran", "Crème brûlée? café!"]) {
      const terms = queryTerms(question);
      const { rows } = terms.length === 0 ? { rows: [] } : await client.execute({
        sql: `SELECT rowid, bm25(chunks) AS score FROM chunks WHERE chunks MATCH ?
          ORDER BY score, rowid LIMIT 20`,
        args: [terms.map((term) => `"${term}"`).join(" OR ")],
      });
      const found = rankPostings(built, question, 20);
      assert.deepEqual(
        found.map(({ index, chunk }) => index * half + chunk + 1),
        rows.map((row) => Number(row.rowid)),
        question,
      );
      found.forEach((hit, i) => {
        assert.ok(Math.abs(hit.score + Number(rows[i]!.score)) < 1e-9, question);
      });
    }
  } finally {
    client.close();
  }
});

Deno.test("rankPostings() ranks as bm25Search() with svc's flavour: the same chunks, order and scores", async () => {
  const texts = [...BAKERY, ...LABELLED.map((labelled) => labelled.question)];
  const halves = [texts.slice(0, 9), texts.slice(9)];
  const postings = await Promise.all(halves.map((half) => TermPostings.build(half, OWN_BM25)));
  const indexes = halves.map((half) => Bm25Index.build(half));
  for (const query of ["cardamom bakery", ...LABELLED.map((labelled) => labelled.question)]) {
    const found = rankPostings(postings, query, 10);
    const expected = bm25Search(indexes, query, 10);
    assert.deepEqual(
      found.map(({ index, chunk }) => [index, chunk]),
      expected.map(({ index, text }) => [index, text]),
      query,
    );
    found.forEach((hit, i) => assert.ok(Math.abs(hit.score - expected[i]!.score) < 1e-9, query));
  }
});

for (const [name, flavour] of [["FTS5", FTS5], ["svc", OWN_BM25]] as const) {
  Deno.test(`rankPostings() ranks only the chunks it is given, in ${name}'s flavour: other documents' words weigh nothing`, async () => {
    const chat = await TermPostings.build([
      "The winter loaf holds cardamom, cardamom and more cardamom.",
      "The summer loaf holds saffron.",
    ], flavour);
    const alone = rankPostings([chat], "cardamom saffron", 10);
    assert.deepEqual(alone.map((hit) => hit.chunk), [0, 1]);
    // Ranked with another document full of cardamom, cardamom is common and saffron wins.
    const other = await TermPostings.build(
      Array.from({ length: 50 }, () => "cardamom everywhere"),
      flavour,
    );
    const together = rankPostings([chat, other], "cardamom saffron", 3);
    assert.deepEqual(together[0], { index: 0, chunk: 1, score: together[0]!.score });
    assert.deepEqual(rankPostings([chat], "cardamom saffron", 10), alone);
  });
}

Deno.test("TermPostings counts chunks, terms and its bytes; rankPostings() leaves out chunks without a query word", async () => {
  const postings = await TermPostings.build(BAKERY, FTS5);
  assert.equal(postings.size, 4);
  // Every word counts in a chunk's length, as in FTS5, the common ones too.
  assert.equal(postings.totalLength, 5 + 10 + 2 + 5);
  assert.ok(postings.bytes > 0);
  assert.deepEqual(rankPostings([postings], "bakery", 10).map((hit) => hit.chunk), [0, 3]);
  assert.deepEqual(rankPostings([postings], "the", 10), []);
  assert.deepEqual(rankPostings([], "bakery", 10), []);
  assert.deepEqual(rankPostings([await TermPostings.build([], FTS5)], "bakery", 10), []);
});

Deno.test("TermPostings keeps each chunk's words as the proximity ranking reads them, in both flavours", async () => {
  const texts = [
    ...BAKERY,
    "The Café's menus! A 5 b",
    "Running runs ran: crème brûlée, ÉTÉ",
    "",
    "the of and a",
  ];
  for (const flavour of [FTS5, OWN_BM25]) {
    const postings = await TermPostings.build(texts, flavour);
    texts.forEach((text, chunk) => assert.deepEqual(postings.wordsOf(chunk), wordKeys(text)));
  }
});

for (const [name, flavour] of [["FTS5", FTS5], ["svc", OWN_BM25]] as const) {
  Deno.test(`rankPostings() bounded by the rare terms ranks as reading every posting, in ${name}'s flavour`, async () => {
    // Words drawn by Zipf's law, as in text: a few in most chunks, most in few.
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const vocabulary = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}x`);
    const word = () => vocabulary[Math.floor(Math.exp(random() * Math.log(3000))) - 1]!;
    const chunk = () => Array.from({ length: 20 + Math.floor(random() * 200) }, word).join(" ");
    const indexes = await Promise.all(
      [1500, 10, 2500].map((size) =>
        TermPostings.build(Array.from({ length: size }, chunk), flavour)
      ),
    );
    let bounded = 0;
    for (let i = 0; i < 60; i++) {
      const query = Array.from({ length: 2 + (i % 12) }, word).join(" ");
      for (const limit of [1, 10, 100]) {
        const scoring = QueryScoring.of(indexes, query);
        const exhaustive = scoring.exhaustive(limit);
        const found = scoring.bounded(limit);
        if (found) {
          bounded++;
          assert.deepEqual(found, exhaustive, `${query}, ${limit}`);
        }
      }
    }
    // Most queries hold a rare word, which bounds the ranking.
    assert.ok(bounded > 90, `bounded ${bounded} of 180`);
  });
}

Deno.test("TermPostings read back from their bytes are the same postings, in both flavours", async () => {
  const texts = [
    ...(await Deno.readTextFile(`${FIXTURES}labelled/commander.md`)).split(/\n\s*\n/),
    "Crème brûlée? café! naïve résumé",
    "",
  ];
  for (const flavour of [FTS5, OWN_BM25]) {
    const built = await TermPostings.build(texts, flavour);
    const bytes = built.toBytes();
    const again = TermPostings.fromBytes(bytes, flavour);
    assert.equal(again.size, built.size);
    assert.equal(again.totalLength, built.totalLength);
    assert.equal(again.bytes, built.bytes);
    assert.deepEqual(again.postingsOf, built.postingsOf);
    assert.deepEqual(again.lengths, built.lengths);
    for (let chunk = 0; chunk < texts.length; chunk++) {
      assert.deepEqual(again.wordsOf(chunk), built.wordsOf(chunk));
    }
    for (const question of ["How do I add an option?", "café", "variadic arguments"]) {
      assert.deepEqual(rankPostings([again], question, 20), rankPostings([built], question, 20));
    }
    assert.throws(() => TermPostings.fromBytes(bytes.subarray(0, bytes.length - 4), flavour), {
      name: "RangeError",
    });
    const other = bytes.slice();
    other[0] = 99;
    assert.throws(() => TermPostings.fromBytes(other, flavour), /format 99/);
  }
});
