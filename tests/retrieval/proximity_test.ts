import assert from "node:assert/strict";
import { proximityRanking, wordKeys } from "../../components/retrieval/proximity.ts";

const passage = (content: string) => ({ content });

Deno.test("proximityRanking() ranks the passage whose question words stand closest first", () => {
  const far = passage(`Copy the file. ${"Other words here. ".repeat(12)}Then undo the change.`);
  const near = passage("To undo a copy, delete the copied command.");
  const none = passage("Nothing of the question here.");
  assert.deepEqual(proximityRanking([far, near, none], "How do I undo a copy?"), [near, far]);
});

Deno.test("proximityRanking() weighs a word most candidates hold less than a rare one", () => {
  const common = passage("bread bread bread oven");
  const rare = passage("bread cardamom");
  const others = [passage("bread"), passage("bread oven"), passage("oven bread")];
  const ranked = proximityRanking([common, rare, ...others], "bread with cardamom or oven?");
  assert.equal(ranked[0], rare);
});

Deno.test("proximityRanking() gives nothing for a question of one word", () => {
  assert.deepEqual(proximityRanking([passage("bread and butter")], "Bread?"), []);
});

Deno.test("proximityRanking() ranks the same from the words a search kept as from the texts", () => {
  const passages = [
    passage(`Copy the file. ${"Other words here. ".repeat(12)}Then undo the change.`),
    passage("To undo a copy, delete the copied command."),
    passage("Copying and undoing: the copies undone."),
    passage("Nothing of the question here."),
  ];
  const kept = new Map(passages.map((each) => [each, wordKeys(each.content)]));
  for (const question of ["How do I undo a copy?", "copied file change", "nothing here"]) {
    assert.deepEqual(
      proximityRanking(passages, question, { wordsOf: (each) => kept.get(each) }),
      proximityRanking(passages, question),
      question,
    );
  }
});
