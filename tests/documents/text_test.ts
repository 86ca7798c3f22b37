import assert from "node:assert/strict";
import { textHandler } from "../../components/documents/text.ts";
import { MAX_DOCUMENT_CHARACTERS } from "../../components/documents/limits.ts";
import { fixture, refusal } from "./_helpers.ts";

Deno.test("`textHandler` reads .md and .txt files", () => {
  assert.deepEqual(textHandler.suffixes, [".md", ".txt"]);
});

Deno.test("`textHandler` gives the whole text as one page without a number, BOM dropped", async () => {
  const bytes = await fixture("guide.md");
  assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  assert.deepEqual(await textHandler.extractPages(bytes, "guide.md"), [{
    text: "# Guide\n\nStart the service with `svc api`. Stop it with Ctrl+C.\n",
    number: null,
  }]);
});

Deno.test("`textHandler` replaces bytes that are not UTF-8 with U+FFFD", async () => {
  const pages = await textHandler.extractPages(await fixture("latin1.txt"), "latin1.txt");
  assert.deepEqual(pages, [{
    text: "Caf\ufffd cr\ufffdme at the caf\ufffd.\nPlain ASCII line.\n",
    number: null,
  }]);
});

Deno.test("`textHandler` keeps valid UTF-8 as it is", async () => {
  const text = "Café naïve — 日本語 🙂\r\nsecond line";
  const pages = await textHandler.extractPages(new TextEncoder().encode(text), "notes.txt");
  assert.deepEqual(pages, [{ text, number: null }]);
});

Deno.test("`textHandler` refuses more characters than MAX_DOCUMENT_CHARACTERS, counted as it decodes", async () => {
  assert.equal(MAX_DOCUMENT_CHARACTERS, 32 * 2 ** 20);
  const encoder = new TextEncoder();
  await assert.rejects(
    textHandler.extractPages(encoder.encode("x".repeat(MAX_DOCUMENT_CHARACTERS + 1)), "long.txt"),
    refusal('Cannot read "long.txt": it holds more than 33,554,432 characters of text'),
  );
  // Characters, not bytes: two bytes each, these are more bytes than the limit, and fewer characters.
  const accented = "é".repeat(MAX_DOCUMENT_CHARACTERS / 2 + 1);
  const [page] = await textHandler.extractPages(encoder.encode(accented), "long.txt");
  assert.equal(page?.text.length, accented.length);
  // A character cut between two slices of the decoding is whole once.
  const cut = `${"x".repeat(2 ** 20 - 1)}é`;
  assert.equal((await textHandler.extractPages(encoder.encode(cut), "cut.txt"))[0]?.text, cut);
});
