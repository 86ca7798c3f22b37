import assert from "node:assert/strict";
import { formatLocation, locationPages } from "../../ui/location.ts";

Deno.test("formatLocation() names one page, several pages, and leaves the rest as given", () => {
  assert.equal(formatLocation("3"), "page 3");
  assert.equal(formatLocation("1-3, 5"), "pages 1-3, 5");
  assert.equal(formatLocation("1-3"), "pages 1-3");
  assert.equal(formatLocation("2, 4"), "pages 2, 4");
  assert.equal(formatLocation("page 3"), "page 3");
  assert.equal(formatLocation("slide 2"), "slide 2");
  assert.equal(formatLocation(""), "");
  assert.equal(formatLocation("  "), "");
});

Deno.test("formatLocation() names the slides of a presentation", () => {
  assert.equal(formatLocation("4", "deck.pptx"), "slide 4");
  assert.equal(formatLocation("1-3, 5", "Deck.PPTX"), "slides 1-3, 5");
  assert.equal(formatLocation("4", "report.pdf"), "page 4");
});

Deno.test("locationPages() reads out the pages of runs and single pages, in order, each once", () => {
  assert.deepEqual(locationPages("1-3, 5"), [1, 2, 3, 5]);
  assert.deepEqual(locationPages("7, 8, 10–11"), [7, 8, 10, 11]);
  assert.deepEqual(locationPages("page 2"), [2]);
  assert.deepEqual(locationPages("2, 2, 1-2"), [2, 1]);
  assert.deepEqual(locationPages(""), []);
  assert.equal(locationPages("1-999999").length, 1001, "a run is cut rather than read out");
});
