import assert from "node:assert/strict";
import { EncodedTexts } from "../../../server/api/encoded_texts.ts";

Deno.test("EncodedTexts gives a text's bytes again while it is the last under its key, and keeps the most recent keys only", () => {
  const texts = new EncodedTexts(2);
  const ada = texts.encode("ada", "[1]");
  assert.equal(texts.encode("ada", "[1]"), ada, "the same bytes");
  assert.deepEqual(new TextDecoder().decode(texts.encode("ada", "[2]")), "[2]");
  const bob = texts.encode("bob", "[3]");
  texts.encode("cy", "[4]");
  texts.encode("ada", "[2]");
  assert.notEqual(texts.encode("bob", "[3]"), bob, "bob was the least recent of three");
});

Deno.test("EncodedTexts keeps no text longer than its limit", () => {
  const texts = new EncodedTexts(2, 4);
  const long = texts.encode("ada", "[1,2]");
  assert.deepEqual(new TextDecoder().decode(long), "[1,2]");
  assert.notEqual(texts.encode("ada", "[1,2]"), long, "encoded again");
  const short = texts.encode("ada", "[1]");
  assert.equal(texts.encode("ada", "[1]"), short);
});
