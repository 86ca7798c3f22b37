/**
 * Usernames as password sign-in keeps them: one spelling per name, so that
 * `alice`, `Alice` and a full-width `ａｌｉｃｅ` are one account, and none that
 * only looks like another (`alice` with an invisible character, or with a
 * Cyrillic `с`) can be made.
 * @module
 */
import { quote, SvcError } from "../../components/core/errors.ts";

/** The most characters a username may have. */
export const MAX_USERNAME_LENGTH = 255;

// Characters that show nothing or change the direction of what follows:
// controls, format characters (zero-width spaces and joiners, bidi marks and
// embeddings), the default-ignorable ones, private use, and unassigned ones.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

// The scripts told apart, each with a test; a letter of none is of "another script".
const SCRIPTS = [
  "Latin",
  "Greek",
  "Cyrillic",
  "Armenian",
  "Georgian",
  "Cherokee",
  "Hebrew",
  "Arabic",
  "Syriac",
  "Thaana",
  "Devanagari",
  "Bengali",
  "Gurmukhi",
  "Gujarati",
  "Oriya",
  "Tamil",
  "Telugu",
  "Kannada",
  "Malayalam",
  "Sinhala",
  "Thai",
  "Lao",
  "Tibetan",
  "Myanmar",
  "Khmer",
  "Mongolian",
  "Ethiopic",
  "Hangul",
  "Hiragana",
  "Katakana",
  "Bopomofo",
  "Han",
].map((name) => ({ name, test: new RegExp(`\\p{Script=${name}}`, "u") }));

// The scripts one name may mix, as Unicode's "highly restrictive" profile
// (UTS #39) allows: none of them looks like another.
const MIXES = [
  ["Latin", "Han", "Hiragana", "Katakana"],
  ["Latin", "Han", "Bopomofo"],
  ["Latin", "Han", "Hangul"],
];

/**
 * The one spelling of a username: NFKC (full-width and compatibility forms
 * become their plain letters), case-folded, then NFKC again.
 * @throws {SvcError} 422 with a sentence naming what is wrong with it
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeUsername } from "./usernames.ts";
 * assert.equal(normalizeUsername("Alice"), "alice");
 * assert.equal(normalizeUsername("ａｌｉｃｅ"), "alice");
 * assert.equal(normalizeUsername("STRASSE"), normalizeUsername("straße"));
 * assert.throws(() => normalizeUsername("alice\u200b"), /an invisible or control character \(U\+200B\)/);
 * assert.throws(() => normalizeUsername("\u0430lice"), /mixes letters of the Cyrillic and Latin scripts/);
 * ```
 */
export function normalizeUsername(name: string): string {
  const problem = usernameProblem(name);
  if (problem !== undefined) {
    throw new SvcError(`The username ${quote(name)} cannot be used: ${problem}`, { status: 422 });
  }
  return foldUsername(name);
}

/** What is wrong with a username, in words, or `undefined` when it can be used. */
export function usernameProblem(name: string): string | undefined {
  const tooLong = `it must have 1 to ${MAX_USERNAME_LENGTH} characters`;
  // Refused before any work on it: no name that long can be one once folded.
  if (name.length > 4 * MAX_USERNAME_LENGTH) return tooLong;
  const folded = foldUsername(name);
  const length = [...folded].length;
  if (length === 0 || length > MAX_USERNAME_LENGTH) return tooLong;
  for (const text of [name, folded]) {
    const invisible = INVISIBLE.exec(text)?.[0];
    if (invisible !== undefined) {
      return `it holds an invisible or control character (${codePoint(invisible)})`;
    }
  }
  if (folded !== folded.trim() || /\s\s/u.test(folded)) {
    return "it has a space at either end, or two in a row";
  }
  const scripts = scriptsOf(folded);
  if (scripts.length > 1 && !MIXES.some((mix) => scripts.every((s) => mix.includes(s)))) {
    const named = scripts.map((script) => script === "" ? "another" : script);
    return `it mixes letters of the ${named.slice(0, -1).join(", ")} and ${named.at(-1)} ` +
      "scripts, which can look alike";
  }
  return undefined;
}

/** A username without the checks: NFKC, case-folded, then NFKC again. */
export function foldUsername(name: string): string {
  // Upper case first, so that what lower case alone keeps apart (ß and ss, final and medial
  // sigma) folds together.
  return name.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC");
}

/** The scripts of a name's letters, in the order met; `""` for a letter of a script not listed. */
function scriptsOf(name: string): string[] {
  const found = new Set<string>();
  for (const char of name) {
    if (!/\p{L}/u.test(char)) continue;
    found.add(SCRIPTS.find((script) => script.test.test(char))?.name ?? "");
  }
  return [...found];
}

function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}
