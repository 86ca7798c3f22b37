import assert from "node:assert/strict";
import { headingOf, pageBlocks, sentences } from "../components/text_blocks.ts";

Deno.test("pageBlocks() splits a page at blank lines and keeps a fenced code block whole", () => {
  const text =
    "Intro line one\nline two.\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\n \n\nLast.";
  assert.deepEqual(pageBlocks(text).map((block) => block.text), [
    "Intro line one\nline two.",
    "```js\nconst a = 1;\n\nconst b = 2;\n```",
    "Last.",
  ]);
});

Deno.test("headingOf() takes Markdown headings, numbered sections and short titles, not sentences or code", () => {
  assert.equal(headingOf("## Default option value"), "Default option value");
  assert.equal(headingOf("2.5 Optional arguments"), "2.5 Optional arguments");
  assert.equal(headingOf("Usage"), "Usage");
  assert.equal(headingOf("1 Introduction"), "1 Introduction");
  assert.equal(headingOf("The types which define optional arguments are:"), undefined);
  assert.equal(headingOf("It is closed on Mondays."), undefined);
  assert.equal(headingOf("npm install semver"), undefined);
  assert.equal(headingOf("const parsed = parse(doc)"), undefined);
  assert.equal(headingOf("2022-07-05"), undefined);
  assert.equal(headingOf("Usage\nMore"), undefined);
  assert.equal(headingOf(`A ${"very ".repeat(12)}long title`), undefined);
});

Deno.test("sentences() cuts after a sentence's punctuation and at line breaks, and joins back", () => {
  const text = "First one. Second (really)! Third: a list\nline two";
  const parts = sentences(text);
  assert.deepEqual(parts, ["First one. ", "Second (really)! ", "Third: ", "a list\n", "line two"]);
  assert.equal(parts.join(""), text);
});

Deno.test("pageBlocks() marks a table of contents by its leader dots", () => {
  const text = "Contents\n\n1 Introduction 2 1.1 Overview . . . . . 2 1.2 Usage . . . . . 3 " +
    "1.3 Options . . . . . 4\n\nA sentence . . . with dots.";
  assert.deepEqual(pageBlocks(text).map((block) => block.contents ?? false), [false, true, false]);
});
