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

Deno.test("sentences() and headingOf() give what their regular expressions gave", () => {
  const split = (text: string) =>
    text.split(/(?<=[.!?:;]["”’)\]]*\s+|\n)(?=\S)/u).filter((part) => part !== "");
  const heading = (line: string) => /^#{1,6}[ \t]+(.+?)[ \t#]*$/.exec(line)?.[1]?.trim();
  let seed = 9;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const pieces = [
    "a",
    "B",
    ".",
    "!",
    ":",
    '"',
    "”",
    ")",
    "]",
    " ",
    "\t",
    "\n",
    "\u00a0",
    "#",
    "🦕",
  ];
  for (let i = 0; i < 5000; i++) {
    const text = Array.from(
      { length: Math.floor(random() * 16) },
      () => pieces[Math.floor(random() * pieces.length)],
    ).join("");
    assert.deepEqual(sentences(text), split(text), JSON.stringify(text));
    if (!text.includes("\n") && heading(text) !== undefined) {
      assert.equal(headingOf(text), heading(text), JSON.stringify(text));
    }
  }
});

Deno.test("sentences() looks at each character of 1 MB of white space and closers at most twice", () => {
  const size = 1024 * 1024;
  for (
    const text of [
      `a.${" ".repeat(size)}x`,
      `a${" ".repeat(size)}x`,
      `a.${")".repeat(size)} x`,
      `${". ".repeat(size / 2)}x`,
      `${")".repeat(size)} x`.repeat(1),
      `${"\n".repeat(size)}x`,
    ]
  ) {
    const work = { steps: 0 };
    assert.equal(sentences(text, work).join(""), text);
    assert.ok(work.steps <= 2 * text.length, `${JSON.stringify(text.slice(0, 6))}: ${work.steps}`);
  }
  assert.equal(headingOf(`# Title${" #".repeat(size / 2)}`), "Title");
  assert.equal(headingOf(`# a${" ".repeat(size)}x`), `a${" ".repeat(size)}x`);
});
