import assert from "node:assert/strict";
import { emojiOf, emojize } from "../../ui/emoji.ts";

Deno.test("emojize() turns known shortcodes into emoji and leaves the others as text", () => {
  assert.equal(
    emojize("| :sparkles: | :rocket: | :eyes: :books: :eyes: |"),
    "| ✨ | 🚀 | 👀 📚 👀 |",
  );
  assert.equal(emojize(":not_an_emoji: 10:30:00"), ":not_an_emoji: 10:30:00");
});

Deno.test("emojiOf() knows no inherited names", () => {
  assert.equal(emojiOf("constructor"), undefined);
  assert.equal(emojiOf("+1"), "👍");
});
