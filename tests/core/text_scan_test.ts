import assert from "node:assert/strict";
import {
  isAsciiDigit,
  isAsciiLetter,
  isSpace,
  tightLines,
  trimSlashes,
} from "../../components/core/text_scan.ts";

Deno.test("isSpace() agrees with \\s on every UTF-16 code unit", () => {
  for (let code = 0; code <= 0xffff; code++) {
    assert.equal(isSpace(code), /\s/.test(String.fromCharCode(code)), code.toString(16));
  }
});

Deno.test("isAsciiLetter() and isAsciiDigit() take ASCII only, as [a-z] with i and [0-9] do", () => {
  for (let code = 0; code <= 0xffff; code++) {
    const character = String.fromCharCode(code);
    assert.equal(isAsciiLetter(code), /[a-z]/i.test(character), code.toString(16));
    assert.equal(isAsciiDigit(code), /[0-9]/.test(character), code.toString(16));
  }
});

Deno.test("trimSlashes() and tightLines() give what their regular expressions give", () => {
  let seed = 3;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const pieces = ["/", "//", "a", " ", "\t", "\n", "\r", "\u00a0", "x/"];
  for (let i = 0; i < 5000; i++) {
    const text = Array.from(
      { length: Math.floor(random() * 16) },
      () => pieces[Math.floor(random() * pieces.length)],
    ).join("");
    assert.equal(trimSlashes(text), text.replace(/\/+$/, ""), JSON.stringify(text));
    assert.equal(tightLines(text), text.replace(/[ \t]*\n[ \t]*/g, "\n"), JSON.stringify(text));
  }
});

Deno.test("trimSlashes() and tightLines() read 1 MB runs that their expressions read again and again", () => {
  // Counted by what they give back: each loop stops at its run's end.
  const size = 1024 * 1024;
  assert.equal(trimSlashes(`${"/".repeat(size)}x`).length, size + 1);
  assert.equal(trimSlashes(`x${"/".repeat(size)}`), "x");
  assert.equal(tightLines(`${" ".repeat(size)}x`).length, size + 1);
  assert.equal(tightLines(`x\n${" \t".repeat(size / 2)}y`), "x\ny");
});
