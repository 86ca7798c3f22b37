import assert from "node:assert/strict";
import { nextZoom, ZOOMS } from "../../ui/zoom.ts";

Deno.test("nextZoom() steps through the zooms and stays at either end", () => {
  const steps = [1];
  while (nextZoom(steps.at(-1)!, 1) !== steps.at(-1)) steps.push(nextZoom(steps.at(-1)!, 1));
  assert.deepEqual(steps, ZOOMS.filter((zoom) => zoom >= 1));
  assert.equal(nextZoom(ZOOMS[0]!, -1), ZOOMS[0]);
  // A zoom between two steps (a pinch) goes to the next step either way.
  assert.equal(nextZoom(1.1, 1), 1.25);
  assert.equal(nextZoom(1.1, -1), 1);
});
