import assert from "node:assert/strict";
import { splitCitations } from "../../ui/citation_markers.ts";

Deno.test("splitCitations() cuts a text into plain text and its [n], [n, m] and [n][m] markers", () => {
  assert.deepEqual(splitCitations("Rye [1]. Cardamom [2, 3][4]."), [
    "Rye ",
    { marker: "[1]", numbers: [1] },
    ". Cardamom ",
    { marker: "[2, 3]", numbers: [2, 3] },
    { marker: "[4]", numbers: [4] },
    ".",
  ]);
});

Deno.test("splitCitations() leaves brackets that are not markers as text", () => {
  assert.deepEqual(splitCitations("[a] [1-2] [] [link](x) [ 7 ]"), [
    "[a] [1-2] [] [link](x) ",
    { marker: "[ 7 ]", numbers: [7] },
  ]);
  assert.deepEqual(splitCitations("An answer still streaming [1"), [
    "An answer still streaming [1",
  ]);
  assert.deepEqual(splitCitations(""), []);
});
