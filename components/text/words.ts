/**
 * The words of a text as svc's lexical parts see them: lower case,
 * compatibility-normalised, without diacritics, split at anything that is not
 * a letter or a digit, without common English function words. Retrieval's
 * full-text arm and proximity, the hash embedder's vectors and the extractive
 * assistant's sentences all read words so, so that each finds what the others
 * find.
 * @module
 */

// Words so frequent in English that they say little about what a passage is
// about; dropping them keeps them from dominating lexical vectors and queries.
const STOPWORDS = new Set(
  ("a about above after again against all also am an and any are as at be because been before " +
    "being below between both but by can could did do does doing down during each few for from " +
    "further had has have having he her here hers herself him himself his how i if in into is it " +
    "its itself just me more most my myself no nor not now of off on once only or other our ours " +
    "ourselves out over own same she should so some such than that the their theirs them " +
    "themselves then there these they this those through to too under until up very was we were " +
    "what when where which while who whom why will with would you your yours yourself yourselves")
    .split(" "),
);

const WORD = /[\p{L}\p{N}]+/gu;
const MARK = /\p{M}/gu;
const NON_ASCII = /[^\t\n\r -~]/;

/**
 * The words of `text` that carry meaning: `"The Café's menus!"` -> `["cafe", "menus"]`.
 * Single letters are dropped too; digits are kept.
 */
export function contentWords(text: string): string[] {
  // Printable ASCII needs no normalisation, and most text is.
  if (!NON_ASCII.test(text)) return plainContentWords(text.toLowerCase());
  const words: string[] = [];
  for (const [word] of text.normalize("NFKD").replace(MARK, "").toLowerCase().matchAll(WORD)) {
    if (isContentWord(word)) words.push(word);
  }
  return words;
}

/**
 * {@linkcode contentWords} of lower-case printable ASCII, whose letters and
 * digits are `a` to `z` and `0` to `9`: read character by character, which
 * is several times faster than the regular expression's matches.
 */
function plainContentWords(text: string): string[] {
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0;
    const inWord = (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
    if (inWord) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      const word = text.slice(start, i);
      if (isContentWord(word)) words.push(word);
      start = -1;
    }
  }
  return words;
}

function isContentWord(word: string): boolean {
  return (word.length > 1 || (word >= "0" && word <= "9")) && !STOPWORDS.has(word);
}

/**
 * A light English stem, enough to meet plurals and common verb endings
 * (`bakes`, `baked`, `baking` -> `bak`); the character n-grams of the hash
 * embedder catch what it misses.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let stemmed = word;
  if (stemmed.endsWith("ies") && stemmed.length > 4) stemmed = `${stemmed.slice(0, -3)}y`;
  else if (/(?:ss|us|is)$/.test(stemmed)) return stemmed;
  else if (/(?:sh|ch|[sxz])es$/.test(stemmed)) stemmed = stemmed.slice(0, -2);
  else if (stemmed.endsWith("s")) stemmed = stemmed.slice(0, -1);
  if (stemmed.endsWith("ing") && stemmed.length > 5) stemmed = stemmed.slice(0, -3);
  else if (stemmed.endsWith("ed") && stemmed.length > 4) stemmed = stemmed.slice(0, -2);
  if (stemmed.endsWith("e") && stemmed.length > 3) stemmed = stemmed.slice(0, -1);
  return stemmed;
}
