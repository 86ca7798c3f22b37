import assert from "node:assert/strict";
import { shorten } from "../components/shorten.ts";

Deno.test("shorten() collapses white space of a short text", () => {
  assert.equal(shorten("  a\n\tb   c ", 100), "a b c");
});

Deno.test("shorten() cuts a long text at a word and marks the cut within the width", () => {
  const text = "word ".repeat(40);
  const short = shorten(text, 100);
  assert.ok(short.length <= 100);
  assert.ok(short.endsWith(" [...]"));
  assert.equal(short, `${"word ".repeat(19).trim()} [...]`);
  assert.equal(short.length, 100);
});

Deno.test("shorten() gives the mark alone when the first word does not fit", () => {
  assert.equal(shorten("x".repeat(200), 100), "[...]");
});
