import assert from "node:assert/strict";
import { isAsciiDigit, isAsciiLetter, isSpace } from "../../components/core/text_scan.ts";

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
