import assert from "node:assert/strict";
import { type PlacedText, runningHeads } from "../../ui/running_heads.ts";

/** A page of `layout.pdf`'s shape: a head line, body lines of some texts each, a foot. */
function page(number: number, body: string[][]): PlacedText[] {
  return [
    { text: "Lindenbaum Bakery: annual report", y: 0.05 },
    { text: `Page ${number} of 3`, y: 0.052 },
    ...body.flatMap((line, index) => line.map((text) => ({ text, y: 0.08 + index * 0.02 }))),
    { text: `${number}`, y: 0.96 },
  ];
}

Deno.test("runningHeads() finds the head and the foot a neighbouring page repeats", () => {
  const two = page(2, [["Bread"], ["The", " ", "winter loaf is sweet."]]);
  const three = page(3, [["Opening hours"], ["The", " ", "shop opens at six."]]);
  assert.deepEqual([...runningHeads(two, three)].sort(), [0, 1, 6]);
});

Deno.test("runningHeads() leaves the body alone, even a text the neighbour has in its place", () => {
  // Both pages' first body line begins with "The", just under the head: it is no head.
  const two = page(2, [["The", " ", "winter loaf"]]);
  const three = page(3, [["The", " ", "shop"]]);
  assert.deepEqual([...runningHeads(two, three)].sort(), [0, 1, 5]);
  // Far from the edges, even a line both pages share is body.
  const middle = [{ text: "Summary", y: 0.5 }];
  assert.deepEqual([...runningHeads(middle, middle)], []);
  // A head found on no neighbour is not one.
  assert.deepEqual([...runningHeads(two, [])], []);
});
