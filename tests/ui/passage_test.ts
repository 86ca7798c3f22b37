import assert from "node:assert/strict";
import { findPassage } from "../../ui/passage.ts";

function found(page: string, passage: string): string | undefined {
  const span = findPassage(page, passage);
  return span && page.slice(span.start, span.end);
}

Deno.test("findPassage() finds the passage in the page whatever its line breaks and spaces", () => {
  const page = "Page two describes the famous winter loaf. It is a sweet\nbraided bread that is " +
    "baked only in December.\n\nThe secret ingredient is cardamom.";
  assert.equal(
    found(page, "It is a sweet braided   bread that is baked only in December."),
    "It is a sweet\nbraided bread that is baked only in December",
  );
});

Deno.test("findPassage() takes a word cut by a hyphen at a line end as the whole word", () => {
  const page = "brought its old recipes and its tra-\nditions to the city, where she opened";
  assert.equal(
    found(page, "its old recipes and its traditions to the city"),
    "its old recipes and its tra-\nditions to the city",
  );
  assert.equal(found(page, "its tra-\nditions to the"), "its tra-\nditions to the");
});

Deno.test("findPassage() finds the part of a passage that begins on the page before", () => {
  const page = "dough rests for twelve hours. Page three lists the opening hours.";
  assert.equal(
    found(page, "The secret ingredient is cardamom. The dough rests for twelve hours."),
    "dough rests for twelve hours",
  );
});

Deno.test("findPassage() passes over a few words that differ, such as a running header", () => {
  const page = "The winter loaf is a sweet braided bread. 2 Bread Its dough is kneaded by hand.";
  assert.equal(
    found(page, "The winter loaf is a sweet braided bread. Its dough is kneaded by hand."),
    "The winter loaf is a sweet braided bread. 2 Bread Its dough is kneaded by hand",
  );
});

Deno.test("findPassage() compares letters without case or accents", () => {
  assert.equal(found("CAFÉ crème brûlée", "cafe creme brulee"), "CAFÉ crème brûlée");
});

Deno.test("findPassage() finds nothing when fewer than three words of the passage are in a row", () => {
  assert.equal(
    findPassage("The bakery is closed on Mondays.", "The shop is open on Sundays."),
    undefined,
  );
  assert.equal(findPassage("", "anything at all"), undefined);
  assert.equal(findPassage("Some text here", ""), undefined);
});
