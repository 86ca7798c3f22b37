import assert from "node:assert/strict";
import { contentWords, stem } from "../../components/text/words.ts";
import { LocalDocument } from "../../components/core/document.ts";
import { readPages } from "../../components/documents/pages.ts";
import { FIXTURES } from "../test_utils.ts";

const STOPWORDS_SAMPLE = ["the", "and", "of", "is", "a"];

/** The words as the regular expression alone finds them, for every text. */
function wordsByPattern(text: string): string[] {
  const normalised = text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  return [...normalised.matchAll(/[\p{L}\p{N}]+/gu)].map(([word]) => word)
    .filter((word) => word.length > 1 || (word >= "0" && word <= "9"))
    .filter((word) => contentWords(word).length > 0);
}

Deno.test("contentWords() reads printable ASCII as the regular expression does, in the fixture documents", async () => {
  const names = ["kitchen.md", "report.pdf", "labelled/commander.md", "labelled/grfguide.pdf"];
  let plain = 0;
  for (const name of names) {
    for (const page of await readPages(LocalDocument.fromPath(`${FIXTURES}${name}`))) {
      // Line by line, so that most are plain ASCII, which is read otherwise.
      for (const line of page.text.split("\n")) {
        assert.deepEqual(contentWords(line), wordsByPattern(line), `${name}: ${line}`);
        if (/^[\t\r -~]*$/.test(line)) plain++;
      }
    }
  }
  assert.ok(plain > 100, `${plain} lines of plain ASCII`);
});

Deno.test("contentWords() keeps digits and words, drops single letters, function words and marks", () => {
  assert.deepEqual(contentWords("The Café's menus!"), ["cafe", "menus"]);
  assert.deepEqual(contentWords("a 7 b 42 x1 IS Rye\tBREAD\r\n"), [
    "7",
    "42",
    "x1",
    "rye",
    "bread",
  ]);
  assert.deepEqual(contentWords("Größe naïve"), ["große", "naive"]);
  for (const word of STOPWORDS_SAMPLE) assert.deepEqual(contentWords(word.toUpperCase()), []);
  assert.equal(stem("baking"), "bak");
});
