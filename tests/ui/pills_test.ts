import assert from "node:assert/strict";
import { PILL_LIMIT, splitPills } from "../../ui/pills.ts";

Deno.test("splitPills() shows at most 20 documents and keeps the rest for +N more", () => {
  const documents = Array.from({ length: 23 }, (_, i) => `d${i}.pdf`);
  const { shown, hidden } = splitPills(documents);
  assert.equal(PILL_LIMIT, 20);
  assert.equal(shown.length, 20);
  assert.deepEqual(hidden, ["d20.pdf", "d21.pdf", "d22.pdf"]);
  assert.deepEqual(splitPills(["a"]), { shown: ["a"], hidden: [] });
});
