import assert from "node:assert/strict";
import { Lexer, PdfString, Unsupported } from "../../../components/documents/pdf/syntax.ts";

Deno.test("the lexer reads numbers, strings and names as pdfjs does", () => {
  const tokens = (text: string) => {
    const lexer = new Lexer(new TextEncoder().encode(text));
    const all: unknown[] = [];
    for (let token = lexer.next(); typeof token !== "symbol"; token = lexer.next()) {
      all.push(token instanceof PdfString ? `(${token.bytes})` : token);
    }
    return all;
  };
  assert.deepEqual(tokens("0.001 -.5 3. +7 12 -0 1.23456789"), [
    0.001,
    -0.5,
    3,
    7,
    12,
    -0,
    1.23456789,
  ]);
  assert.deepEqual(tokens("(a\\(b\\)c\\053\\\nd) (x(y)z) (\\7\\101) <48 65 6c6C 6>"), [
    "(a(b)c+d)",
    "(x(y)z)",
    "(\x07A)",
    "(Hell`)",
  ]);
  assert.equal(
    (tokens("/A#20B % a comment\n")[0] as { name: string }).name,
    "A B",
  );
  assert.throws(() => tokens("1.2.3"), Unsupported);
  assert.throws(() => tokens("(unterminated"), Unsupported);
});

Deno.test("the lexer reads a string's bytes as they are, those of windows-1252's punctuation too", () => {
  const bytes = new Uint8Array([0x28, ...Array(20).fill(0x61), 0x93, 0x94, 0x80, 0x29]);
  const token = new Lexer(bytes).next();
  assert.ok(token instanceof PdfString);
  assert.deepEqual([...token.bytes].map((c) => c.charCodeAt(0)).slice(-3), [0x93, 0x94, 0x80]);
});
