import assert from "node:assert/strict";
import { Turns } from "../../components/core/turns.ts";

Deno.test("Turns lets a timer in only once the work held the thread its milliseconds", async () => {
  let ran = false;
  setTimeout(() => ran = true, 0);
  // A second is far longer than the loop takes: no turn is given.
  const patient = new Turns(1000);
  for (let i = 0; i < 100; i++) await patient.maybe();
  assert.equal(ran, false);
  // Work that held the thread as long as asked gets a turn, and the timer runs.
  await new Turns(0).maybe();
  assert.equal(ran, true);
});
