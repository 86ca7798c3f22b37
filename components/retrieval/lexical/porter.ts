/**
 * The Porter stemmer as SQLite's FTS5 `porter` tokenizer applies it, so that
 * a full-text arm ranked in memory finds the same terms as FTS5 does (the
 * LibSQL storage's, which FTS5 ranked before, and the page ranking's, which
 * FTS5 still ranks where a page's words are not all ASCII): the `stemmer`
 * package's Porter (1980) algorithm, with FTS5's bounds, tokens shorter than
 * 3 or longer than 64 characters kept as they are.
 *
 * The package replaced a port written here once measurement showed they stem
 * alike: on every word of the test fixtures and the labelled set (3,943
 * words), and of the repository's own text and Debian's `/usr/share/doc`
 * besides (151,744 in all), its stems are the port's, and FTS5's for every
 * word of ASCII letters and digits. Both differ from FTS5 on 5 words with
 * letters beyond ASCII (`straße`, `μs`), which FTS5 stems byte by byte;
 * those never reach the stemmer in memory (see `page_search.ts`) or were
 * stemmed so by the port as well.
 * @module
 */
import { stemmer } from "stemmer";

/** FTS5 leaves a token of more characters than this as it is. */
const LONGEST = 64;

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
  return token.length < 3 || token.length > LONGEST ? token : stemmer(token);
}
