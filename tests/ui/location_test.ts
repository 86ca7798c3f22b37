import assert from "node:assert/strict";
import { formatLocation } from "../../ui/location.ts";

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
