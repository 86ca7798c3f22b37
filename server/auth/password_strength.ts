/**
 * The least a password must be to be set: long enough that it cannot be
 * guessed in the few tries the login limits leave, and not one of the
 * passwords that guessers try first.
 * @module
 */
import { SvcError } from "../../components/core/errors.ts";
import common from "./common_passwords.json" with { type: "json" };
import { foldUsername } from "./usernames.ts";

/** The fewest characters other than spaces that a password may have. */
export const MIN_PASSWORD_LENGTH = 8;

const COMMON = new Set<string>(common.passwords);

/**
 * What makes a password too weak to set, in words, or `undefined` for one
 * that may be set: fewer than {@linkcode MIN_PASSWORD_LENGTH} characters
 * other than spaces, one or two characters repeated (`aaaaaaaa`,
 * `abababab`), the username itself, or one of the 500 most common passwords
 * of that length (`common_passwords.json`, which names its source), compared
 * without case.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { passwordWeakness } from "./password_strength.ts";
 * assert.equal(passwordWeakness("correct horse battery", "ada"), undefined);
 * assert.match(passwordWeakness("        ", "ada")!, /at least 8 characters other than spaces/);
 * assert.match(passwordWeakness("Password1", "ada")!, /one of the most common passwords/);
 * assert.match(passwordWeakness("Ada-Lovelace", "ada-lovelace")!, /the username/);
 * ```
 */
export function passwordWeakness(password: string, username: string): string | undefined {
  const visible = [...password].filter((char) => !/\s/u.test(char));
  if (visible.length < MIN_PASSWORD_LENGTH) {
    return `it must have at least ${MIN_PASSWORD_LENGTH} characters other than spaces`;
  }
  if (new Set(visible).size <= 2) return "it repeats one or two characters only";
  const folded = password.trim().toLowerCase();
  if (foldUsername(password.trim()) === foldUsername(username)) return "it is the username";
  if (COMMON.has(folded)) {
    return "it is one of the most common passwords, which are tried first";
  }
  return undefined;
}

/**
 * Refuses a password too weak to set ({@linkcode passwordWeakness}).
 * @throws {SvcError} 422: `The password is too weak: it ...; nothing was changed`
 */
export function checkPasswordStrength(password: string, username: string): void {
  const weakness = passwordWeakness(password, username);
  if (weakness === undefined) return;
  throw new SvcError(`The password is too weak: ${weakness}; nothing was changed`, {
    status: 422,
  });
}
