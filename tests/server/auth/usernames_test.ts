import assert from "node:assert/strict";
import {
  foldUsername,
  normalizeUsername,
  usernameProblem,
} from "../../../server/auth/usernames.ts";

Deno.test("normalizeUsername() gives the names that look alike one spelling", () => {
  for (const spelling of ["alice", "Alice", "ALICE", "ａｌｉｃｅ", "Ａｌｉｃｅ"]) {
    assert.equal(normalizeUsername(spelling), "alice", spelling);
  }
  assert.equal(normalizeUsername("Straße"), normalizeUsername("STRASSE"));
  assert.equal(normalizeUsername("ΟΔΟΣ"), normalizeUsername("οδοσ"));
  assert.equal(normalizeUsername("Ada Lovelace"), "ada lovelace");
  assert.equal(normalizeUsername("ﬁona"), "fiona");
  // Names of one script, and the mixes of Han with kana or Hangul, are kept.
  assert.equal(normalizeUsername("Дмитрий"), "дмитрий");
  assert.equal(normalizeUsername("山田たろう"), "山田たろう");
  assert.equal(normalizeUsername("ada_1815@example.org"), "ada_1815@example.org");
  for (const name of ["Alice", "Straße", "ΟΔΟΣ", "Ǆemal", "ﬃ", "İstanbul"]) {
    assert.equal(foldUsername(foldUsername(name)), foldUsername(name), `${name} folds once`);
  }
});

Deno.test("normalizeUsername() refuses invisible characters, look-alike scripts and bad lengths, in a sentence", () => {
  const cases: [string, string][] = [
    ["alice\u200b", "it holds an invisible or control character (U+200B)"],
    ["ali\u200dce", "it holds an invisible or control character (U+200D)"],
    ["\u202ealice", "it holds an invisible or control character (U+202E)"],
    ["alice\u2066", "it holds an invisible or control character (U+2066)"],
    ["ali\u00adce", "it holds an invisible or control character (U+00AD)"],
    ["alice\n", "it holds an invisible or control character (U+000A)"],
    ["\u0430lice", "it mixes letters of the Cyrillic and Latin scripts, which can look alike"],
    ["ali\u03bfe", "it mixes letters of the Latin and Greek scripts, which can look alike"],
    [" alice", "it has a space at either end, or two in a row"],
    ["ada  lovelace", "it has a space at either end, or two in a row"],
    ["", "it must have 1 to 255 characters"],
    ["a".repeat(256), "it must have 1 to 255 characters"],
    ["a".repeat(100_000), "it must have 1 to 255 characters"],
  ];
  for (const [name, problem] of cases) {
    assert.equal(usernameProblem(name), problem, JSON.stringify(name));
  }
  assert.throws(() => normalizeUsername("alice\u200b"), {
    status: 422,
    message: 'The username "alice\u200b" cannot be used: it holds an invisible or control ' +
      "character (U+200B)",
  });
});
