import assert from "node:assert/strict";
import common from "../../../server/auth/common_passwords.json" with { type: "json" };
import { checkPasswordStrength, passwordWeakness } from "../../../server/auth/password_strength.ts";

Deno.test("passwordWeakness() refuses short, blank, repeated, common passwords and the username", () => {
  const cases: [string, string][] = [
    ["short", "it must have at least 8 characters other than spaces"],
    [" ".repeat(8), "it must have at least 8 characters other than spaces"],
    ["a b c d e f g", "it must have at least 8 characters other than spaces"],
    ["xxxxxxxx", "it repeats one or two characters only"],
    ["abababab", "it repeats one or two characters only"],
    ["password", "it is one of the most common passwords, which are tried first"],
    ["12345678", "it is one of the most common passwords, which are tried first"],
    ["Password", "it is one of the most common passwords, which are tried first"],
    ["  iloveyou ", "it is one of the most common passwords, which are tried first"],
    ["Ada-Lovelace", "it is the username"],
  ];
  for (const [password, weakness] of cases) {
    assert.equal(passwordWeakness(password, "ada-lovelace"), weakness, JSON.stringify(password));
  }
  for (const password of ["correct horse", "Tr0ub4dor&3", "ünïcödé pass", "12345679x"]) {
    assert.equal(passwordWeakness(password, "ada"), undefined, password);
  }
});

Deno.test("the list of common passwords names its source and holds a few hundred of 8 characters or more", () => {
  assert.match(common.source, /@zxcvbn-ts\/language-common/);
  assert.equal(common.passwords.length, 500);
  assert.ok(common.passwords.every((password) => [...password].length >= 8));
  assert.equal(new Set(common.passwords).size, 500);
});

Deno.test("checkPasswordStrength() refuses with a sentence that says nothing was changed", () => {
  assert.throws(() => checkPasswordStrength("password", "ada"), {
    status: 422,
    message: "The password is too weak: it is one of the most common passwords, which are tried " +
      "first; nothing was changed",
  });
  checkPasswordStrength("correct horse", "ada");
});
