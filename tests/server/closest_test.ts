import assert from "node:assert/strict";
import { closest } from "../../server/closest.ts";

Deno.test("closest() picks the candidate fewest edits away, the first one on a tie", () => {
  assert.equal(closest("chek", ["init", "check", "api", "ui"]), "check");
  assert.equal(closest("ap", ["ui", "api"]), "api");
  assert.equal(closest("ab", ["ac", "ad"]), "ac");
  assert.equal(closest("ab", ["ad", "ac"]), "ad");
});

Deno.test("closest() suggests nothing beyond maxDistance, nor from no candidates", () => {
  assert.equal(closest("check", []), undefined);
  assert.equal(closest("serve", ["init", "check", "api", "ui"]), undefined);
  assert.equal(closest("chck", ["check"], { maxDistance: 0 }), undefined);
  assert.equal(
    closest("svc.assistants.Gpt4o", ["svc.assistants.Gpt4"], { maxDistance: 3 }),
    "svc.assistants.Gpt4",
  );
});
