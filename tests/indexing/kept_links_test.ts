import assert from "node:assert/strict";
import { KeptLinks } from "../../components/indexing/kept_links.ts";

/** Links that count their reads: the count is the value of each read's one link. */
function counted(): { reads: number; read: () => Promise<Map<string, number>> } {
  const counter = {
    reads: 0,
    read: () => Promise.resolve(new Map([["doc", ++counter.reads]])),
  };
  return counter;
}

Deno.test("KeptLinks reads a chat's links once per state, and at every call without one", async () => {
  const kept = new KeptLinks<number>();
  const links = counted();
  await kept.read("chat", "v1", links.read);
  await kept.read("chat", "v1", links.read);
  assert.equal(links.reads, 1);
  assert.deepEqual(await kept.read("chat", "v2", links.read), new Map([["doc", 2]]));
  await kept.read("chat", undefined, links.read);
  await kept.read("chat", undefined, links.read);
  assert.equal(links.reads, 4);
  // A copy each time: what a caller changes is not kept.
  (await kept.read("chat", "v2", links.read)).clear();
  assert.deepEqual(await kept.read("chat", "v2", links.read), new Map([["doc", 2]]));
});

Deno.test("KeptLinks keeps the chats read last, at most its size", async () => {
  const kept = new KeptLinks<number>(2);
  const links = counted();
  for (const chat of ["a", "b", "c"]) await kept.read(chat, "v", links.read);
  await kept.read("b", "v", links.read);
  await kept.read("c", "v", links.read);
  assert.equal(links.reads, 3, "b and c, read last, are kept");
  await kept.read("a", "v", links.read);
  assert.equal(links.reads, 4, "a, read first, went");
});
