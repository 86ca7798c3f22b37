import assert from "node:assert/strict";
import { textHandler } from "../../components/documents/text.ts";
import { fixture } from "./_helpers.ts";

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
