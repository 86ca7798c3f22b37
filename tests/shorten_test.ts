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

Deno.test("shorten() gives what splitting the whole text at white space gives", () => {
  function reference(text: string, width: number): string {
    const words = text.split(/\s+/).filter(Boolean);
    const collapsed = words.join(" ");
    if (collapsed.length <= width) return collapsed;
    let result = "";
    for (const word of words) {
      const next = result ? `${result} ${word}` : word;
      if (next.length + 6 > width) break;
      result = next;
    }
    return result ? `${result} [...]` : "[...]";
  }
  let seed = 11;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const pieces = ["a", "bb", "cccccc", " ", "  ", "\n", "\u00a0", "\u3000", "é"];
  for (let i = 0; i < 3000; i++) {
    const text = Array.from(
      { length: Math.floor(random() * 30) },
      () => pieces[Math.floor(random() * pieces.length)],
    ).join("");
    const width = Math.floor(random() * 20);
    assert.equal(shorten(text, width), reference(text, width), JSON.stringify([text, width]));
  }
});

Deno.test("shorten() reads a long text only as far as the width and one word more, twice at most", () => {
  let read = 0;
  const words = "word ".repeat(200_000);
  // A string as shorten() reads it, that counts the characters it is asked for.
  const counted = {
    length: words.length,
    charCodeAt: (i: number) => {
      read++;
      return words.charCodeAt(i);
    },
    slice: (start: number, end: number) => words.slice(start, end),
  } as unknown as string;
  assert.equal(shorten(counted, 100), `${"word ".repeat(19).trim()} [...]`);
  assert.ok(read <= 2 * 110, `${read} characters read`);
});
