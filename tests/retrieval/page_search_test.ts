import assert from "node:assert/strict";
import type { StoredChunk } from "../../components/indexing/mod.ts";
import {
  pageId,
  pageIdsOf,
  PageSearch,
  rankByPages,
} from "../../components/retrieval/page_search.ts";
import { FIXTURES } from "../test_utils.ts";
import { LABELLED } from "../source_storages/_helpers.ts";

function chunk(key: string, ordinal: number, pages: number[], text: string): StoredChunk {
  return { key, ordinal, text, pageNumbers: pages, numTokens: text.split(" ").length };
}

const KITCHEN = [
  chunk("kitchen", 0, [1], "Bread keeps for two days in a paper bag."),
  chunk("kitchen", 1, [2], "Wrap the loaf in foil."),
  chunk("kitchen", 2, [2], "Freezing bread keeps it fresh for a month."),
  chunk("kitchen", 3, [3], "Fish is frozen on the day it is bought."),
];

/** A loader over fixed chunks that counts its reads. */
function loader(chunks: Record<string, StoredChunk[]>) {
  const reads: string[] = [];
  return {
    reads,
    load: (key: string) => {
      reads.push(key);
      return Promise.resolve(chunks[key] ?? []);
    },
  };
}

Deno.test("a passage is ranked by its page, which holds the words around it", async () => {
  const search = new PageSearch();
  const { load } = loader({ kitchen: KITCHEN });
  const ranks = await search.rank([{ key: "kitchen", name: "k.pdf" }], "freeze bread", load);
  // "Wrap the loaf in foil." holds no word of the question, but its page does; the page of
  // the fish holds none ("frozen" is not "freeze" to the stemmer), so its passage is left out.
  const ranked = rankByPages([KITCHEN[0]!, KITCHEN[1]!, KITCHEN[3]!], ranks);
  assert.deepEqual(ranked.map((each) => each.ordinal), [1, 0]);
  search.close();
});

Deno.test("a chunk over two pages counts for both; a document without pages is one page", () => {
  assert.deepEqual(pageIdsOf(chunk("k", 0, [4, 5], "x")), [pageId("k", 4), pageId("k", 5)]);
  assert.deepEqual(pageIdsOf(chunk("k", 0, [], "x")), [pageId("k", "")]);
});

Deno.test("a question that names a document ranks that document's pages first", async () => {
  const search = new PageSearch();
  const { load } = loader({
    a: [chunk("a", 0, [], "Install it with npm.")],
    b: [chunk("b", 0, [], "Install it with npm.")],
  });
  const indexes = [{ key: "a", name: "commander-readme.md" }, { key: "b", name: "semver.md" }];
  const ranks = await search.rank(indexes, "How do I install semver?", load);
  assert.deepEqual([...ranks.keys()], [pageId("b", ""), pageId("a", "")]);
  search.close();
});

Deno.test("a set of indexes is ranked with its own statistics, whatever other sets hold", async () => {
  const other = Array.from({ length: 50 }, (_, i) => chunk("other", i, [i + 1], "bread bread"));
  const question = "frozen fish bread";
  const alone = new PageSearch();
  const { load } = loader({ kitchen: KITCHEN, other });
  const before = await alone.rank([{ key: "kitchen", name: "k.pdf" }], question, load);
  await alone.rank([{ key: "other", name: "o.pdf" }], question, load);
  const after = await alone.rank([{ key: "kitchen", name: "k.pdf" }], question, load);
  assert.deepEqual([...after], [...before]);
  alone.close();
});

Deno.test("pages are read once per set of indexes, and again once dropped past the bound", async () => {
  const kept = new PageSearch();
  const { load, reads } = loader({ kitchen: KITCHEN, other: [chunk("other", 0, [1], "bread")] });
  const kitchen = [{ key: "kitchen", name: "k.pdf" }];
  await kept.rank(kitchen, "bread", load);
  await kept.rank(kitchen, "fish", load);
  assert.deepEqual(reads, ["kitchen"]);
  kept.close();

  // Room for one set only: searching another drops the first.
  const small = new PageSearch({ maxChars: 100 });
  const counted = loader({ kitchen: KITCHEN, other: [chunk("other", 0, [1], "bread")] });
  await small.rank(kitchen, "bread", counted.load);
  await small.rank([{ key: "other", name: "o.pdf" }], "bread", counted.load);
  await small.rank(kitchen, "bread", counted.load);
  assert.deepEqual(counted.reads, ["kitchen", "other", "kitchen"]);
  small.close();
});

Deno.test("a failed read is not kept: the next question reads again", async () => {
  const search = new PageSearch();
  let fail = true;
  const load = (_key: string) =>
    fail ? Promise.reject(new Error("the database is gone")) : Promise.resolve(KITCHEN);
  const kitchen = [{ key: "kitchen", name: "k.pdf" }];
  await assert.rejects(search.rank(kitchen, "bread", load), /the database is gone/);
  fail = false;
  const ranks = await search.rank(kitchen, "bread", load);
  assert.ok(ranks.has(pageId("kitchen", 1)));
  search.close();
});

Deno.test("a question without words, or words no page holds, ranks no page", async () => {
  const search = new PageSearch();
  const { load, reads } = loader({ kitchen: KITCHEN });
  const kitchen = [{ key: "kitchen", name: "k.pdf" }];
  assert.equal((await search.rank(kitchen, "?!", load)).size, 0);
  assert.deepEqual(reads, []);
  // Words that read as FTS5 syntax are searched as words.
  assert.equal((await search.rank(kitchen, 'NEAR(cake) OR "pie" *', load)).size, 0);
  search.close();
});

Deno.test("a set of indexes too large to index soon is ranked without its pages, and read once", async () => {
  const search = new PageSearch({ maxSetChars: 60 });
  const { load, reads } = loader({ kitchen: KITCHEN });
  const kitchen = [{ key: "kitchen", name: "k.pdf" }];
  assert.equal((await search.rank(kitchen, "freeze bread", load)).size, 0);
  assert.equal((await search.rank(kitchen, "fish", load)).size, 0);
  assert.deepEqual(reads, ["kitchen"]);
  // Within the bound, the same pages are ranked.
  const roomy = new PageSearch({ maxSetChars: 1000 });
  assert.equal((await roomy.rank(kitchen, "freeze bread", load)).size, 2);
  search.close();
  roomy.close();
});

Deno.test("pages of plain words are ranked in memory as FTS5 ranks them: the same pages, in the same order", async () => {
  const paragraphs = [
    await Deno.readTextFile(`${FIXTURES}labelled/commander.md`),
    await Deno.readTextFile(`${FIXTURES}guide.md`),
  ].map((text) =>
    // Without the README's one line of Chinese, which FTS5 alone ranks (below).
    text.replace(/[^\t\n\r -~]/g, " ").split(/\n\s*\n/)
      .filter((paragraph) => paragraph.trim() !== "")
  );
  // Three paragraphs a page; the guide's last pages hold the same paragraph twice.
  const chunks = (key: string, texts: string[]) =>
    texts.map((text, ordinal) => chunk(key, ordinal, [Math.floor(ordinal / 3) + 1], text));
  const stored = {
    commander: chunks("commander", paragraphs[0]!),
    guide: chunks("guide", [...paragraphs[1]!, ...paragraphs[1]!.slice(-4)]),
  };
  const indexes = [{ key: "commander", name: "commander.md" }, { key: "guide", name: "guide.md" }];
  const questions = [
    ...JSON.parse(await Deno.readTextFile(`${FIXTURES}labelled/questions.json`)),
    ...LABELLED,
  ].map((labelled: { question: string }) => labelled.question);
  const inMemory = new PageSearch();
  const fts5 = new PageSearch({ inMemory: false });
  const { load } = loader(stored);
  for (const question of [...questions, "the the option option", "Options: --help or -h?"]) {
    const expected = await fts5.rank(indexes, question, load);
    assert.ok(expected.size > 0, question);
    assert.deepEqual([...await inMemory.rank(indexes, question, load)], [...expected], question);
  }
  // A page with a letter beyond ASCII, and a question with one, are ranked by FTS5.
  const cafe = { menu: [chunk("menu", 0, [1], "Café crème"), chunk("menu", 1, [2], "cafe")] };
  for (const question of ["cafe", "café crème"]) {
    const menu = [{ key: "menu", name: "menu.md" }];
    assert.deepEqual(
      [...await inMemory.rank(menu, question, loader(cafe).load)],
      [...await fts5.rank(menu, question, loader(cafe).load)],
    );
  }
  inMemory.close();
  fts5.close();
});
