/**
 * The Porter stemmer as SQLite's FTS5 `porter` tokenizer applies it, so that
 * a search that ranks in memory finds the same terms as FTS5 did: tokens
 * shorter than 3 or longer than 64 characters are kept as they are, `y` is a
 * vowel after a consonant, and the suffix rules of each step are tried in
 * FTS5's order, the first suffix that ends the word deciding.
 * @module
 */

/** A suffix, what replaces it, and whether the stem before it allows that. */
type Rule = [suffix: string, replacement: string, allows: (stem: string) => boolean];

/**
 * The stem of a lower-case token, as FTS5's porter tokenizer gives it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { porterStem } from "./porter.ts";
 * assert.deepEqual(
 *   ["caresses", "ponies", "running", "hopping", "relational", "generalization", "adjustment", "at"]
 *     .map(porterStem),
 *   ["caress", "poni", "run", "hop", "relat", "gener", "adjust", "at"],
 * );
 * ```
 */
export function porterStem(token: string): string {
  if (token.length < 3 || token.length > 64) return token;
  let word = step1a(token);
  if (word.length > 3 && word.endsWith("eed") && measureAbove0(word.slice(0, -3))) {
    word = word.slice(0, -1);
  }
  const stripped = step1b(word);
  if (stripped !== undefined) {
    word = stripped;
    const grown = apply(word, STEP_1B2);
    if (grown !== undefined) {
      word = grown;
    } else {
      const last = word.at(-1)!;
      if (!isVowel(last, false) && !"lsz".includes(last) && last === word.at(-2)) {
        word = word.slice(0, -1);
      } else if (measureIs1(word) && endsCvc(word)) {
        word += "e";
      }
    }
  }
  if (word.endsWith("y") && hasVowel(word.slice(0, -1))) word = `${word.slice(0, -1)}i`;
  for (const rules of [STEP_2, STEP_3, STEP_4]) word = apply(word, rules) ?? word;
  if (word.endsWith("e")) {
    const stem = word.slice(0, -1);
    if (measureAbove1(stem) || (measureIs1(stem) && !endsCvc(stem))) word = stem;
  }
  if (word.length > 1 && word.endsWith("ll") && measureAbove1(word.slice(0, -1))) {
    word = word.slice(0, -1);
  }
  return word;
}

function step1a(word: string): string {
  if (!word.endsWith("s")) return word;
  if (word.endsWith("es")) {
    return (word.length > 4 && word.endsWith("sses")) || (word.length > 3 && word.endsWith("ies"))
      ? word.slice(0, -2)
      : word.slice(0, -1);
  }
  return word.endsWith("ss") ? word : word.slice(0, -1);
}

/** Step 1b's first part: the word without "ed" or "ing" when that went, else undefined. */
function step1b(word: string): string | undefined {
  // "eed" becomes "ee" (in porterStem), and is never taken for "ed".
  if (word.length > 3 && word.endsWith("eed")) return undefined;
  for (const suffix of ["ed", "ing"]) {
    if (word.length > suffix.length && word.endsWith(suffix)) {
      const stem = word.slice(0, -suffix.length);
      return hasVowel(stem) ? stem : undefined;
    }
  }
  return undefined;
}

function isVowel(char: string, yIsVowel: boolean): boolean {
  return "aeiou".includes(char) || (yIsVowel && char === "y");
}

/** The end of the first vowels-then-consonants run of `stem` from `start`, or 0 when none ends. */
function gobble(stem: string, start: number, previousConsonant: boolean): number {
  let consonant = previousConsonant;
  let i = start;
  for (; i < stem.length; i++) {
    consonant = !isVowel(stem[i]!, consonant);
    if (!consonant) break;
  }
  for (i++; i < stem.length; i++) {
    consonant = !isVowel(stem[i]!, consonant);
    if (consonant) return i + 1;
  }
  return 0;
}

function measureAbove0(stem: string): boolean {
  return gobble(stem, 0, false) > 0;
}

function measureAbove1(stem: string): boolean {
  const first = gobble(stem, 0, false);
  return first > 0 && gobble(stem, first, true) > 0;
}

function measureIs1(stem: string): boolean {
  const first = gobble(stem, 0, false);
  return first > 0 && gobble(stem, first, true) === 0;
}

/** Whether the stem has a vowel, `y` counting as one anywhere but first. */
function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (isVowel(stem[i]!, i > 0)) return true;
  return false;
}

/** Porter's *o: consonant, vowel, consonant at the end, the last not w, x or y. */
function endsCvc(stem: string): boolean {
  if (stem.length === 0 || "wxy".includes(stem.at(-1)!)) return false;
  let mask = 0;
  let consonant = false;
  for (const char of stem) {
    consonant = !isVowel(char, consonant);
    mask = ((mask << 1) | (consonant ? 1 : 0)) & 7;
  }
  return mask === 5;
}

const any = () => true;
const sOrT = (stem: string) => /[st]$/.test(stem) && measureAbove1(stem);

const STEP_1B2: readonly Rule[] = [["at", "ate", any], ["bl", "ble", any], ["iz", "ize", any]];

const STEP_2: readonly Rule[] = [
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["logi", "log"],
  ["bli", "ble"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
].map(([suffix, replacement]) => [suffix!, replacement!, measureAbove0]);

const STEP_3: readonly Rule[] = [
  ["ical", "ic"],
  ["ness", ""],
  ["icate", "ic"],
  ["iciti", "ic"],
  ["ful", ""],
  ["ative", ""],
  ["alize", "al"],
].map(([suffix, replacement]) => [suffix!, replacement!, measureAbove0]);

const STEP_4: readonly Rule[] = [
  ...["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent"]
    .map((suffix): Rule => [suffix, "", measureAbove1]),
  ["ion", "", sOrT],
  ...["ou", "ism", "ate", "iti", "ous", "ive", "ize"]
    .map((suffix): Rule => [suffix, "", measureAbove1]),
];

/**
 * The word with the first rule whose suffix ends it (leaving a stem of at
 * least one character) applied, when its stem allows; undefined when no
 * suffix ends it or the stem does not allow. FTS5 tries the suffixes that
 * share the word's last but one character, in the order above.
 */
function apply(word: string, rules: readonly Rule[]): string | undefined {
  const key = word.at(-2);
  for (const [suffix, replacement, allows] of rules) {
    if (suffix.at(-2) !== key) continue;
    if (word.length > suffix.length && word.endsWith(suffix)) {
      const stem = word.slice(0, -suffix.length);
      return allows(stem) ? stem + replacement : undefined;
    }
  }
  return undefined;
}
