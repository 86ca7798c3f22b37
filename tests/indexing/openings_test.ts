import assert from "node:assert/strict";
import { Openings } from "../../components/indexing/openings.ts";

Deno.test("Openings opens a location once, for every user at once, and each location apart", async () => {
  const openings = new Openings<string>();
  let opened = 0;
  const open = (location: string) => () => Promise.resolve(`${location} #${++opened}`);
  const [a, again] = await Promise.all([
    openings.get("a", open("a")),
    openings.get("a", open("a")),
  ]);
  assert.equal(a, "a #1");
  assert.equal(again, "a #1");
  assert.equal(await openings.get("b", open("b")), "b #2");
});

Deno.test("Openings forgets an opening that failed, so that the next use tries again", async () => {
  const openings = new Openings<string>();
  await assert.rejects(openings.get("a", () => Promise.reject(new Error("down"))), /down/);
  assert.equal(await openings.get("a", () => Promise.resolve("up")), "up");
});
