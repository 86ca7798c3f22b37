/**
 * Credentials in running text, found without knowing them: the value of an
 * `Authorization` header, or of an API key header or field, whatever its
 * scheme (`Bearer x`, `Basic x`, `Token x`, or the key alone), and a
 * `Bearer`, `Basic` or `Token` credential wherever it stands, as a provider or
 * a gateway that echoes a request shows them.
 * @module
 */
import { isAsciiDigit, isAsciiLetter, isSpace, type Work } from "./text_scan.ts";

/** Names whose value is a credential, in lower case: `Proxy-Authorization`, `x-api-key`, ... */
const NAMES = ["authorization", "api-key", "api_key", "apikey"];

/** Schemes whose next word is a credential, in lower case. */
const SCHEMES = ["bearer", "basic", "token"];

/** How far a name may stand from its `:` or `=`, and a scheme from its credential. */
const GAP = 16;

/** How short a credential after a bare scheme may be: shorter words are taken for prose. */
const MIN_CREDENTIAL = 8;

/**
 * The text with each credential replaced by `***`: a name of {@linkcode NAMES}
 * followed by `:` or `=` (quotes, spaces and the word `header` may stand
 * between) hides its value, scheme and all; a scheme of {@linkcode SCHEMES}
 * followed by a word that looks like a credential (eight or more characters
 * with a digit, a symbol or letters of both cases) hides that word.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactCredentials } from "./credentials.ts";
 * assert.equal(
 *   redactCredentials('echo: {"authorization":"Bearer sk-live-123","x-api-key":"k-9"}'),
 *   'echo: {"authorization":"***","x-api-key":"***"}',
 * );
 * assert.equal(redactCredentials("sent Basic YWRhOnB3 to the proxy"), "sent Basic *** to the proxy");
 * assert.equal(redactCredentials("Authorization failed: basic information"), "Authorization failed: basic information");
 * ```
 */
export function redactCredentials(text: string, work?: Work): string {
  let result = "";
  let kept = 0;
  for (const [start, end] of credentialSpans(text, work)) {
    result += `${text.slice(kept, start)}***`;
    kept = end;
  }
  return kept === 0 ? text : result + text.slice(kept);
}

/**
 * Where the credentials of {@linkcode redactCredentials} are, as `[start, end)`
 * pairs, in one pass. Linear in the text: at each position a name or a scheme
 * is compared (a bounded number of characters), the gap after it is at most
 * {@linkcode GAP} long, and a credential read to its end is skipped, never read
 * again. `work` counts the characters looked at, for a test.
 */
export function credentialSpans(text: string, work: Work = { steps: 0 }): [number, number][] {
  const spans: [number, number][] = [];
  let i = 0;
  while (i < text.length) {
    work.steps++;
    // Every name starts with "a", every scheme with "b" or "t": other characters start neither.
    const first = text.charCodeAt(i) | 0x20;
    if (first !== 0x61 && first !== 0x62 && first !== 0x74) {
      i++;
      continue;
    }
    const span = afterName(text, i, work) ?? afterScheme(text, i, work);
    if (span) {
      spans.push(span);
      i = span[1];
    } else {
      i++;
    }
  }
  return spans;
}

/** The value after a name at `at` and its `:` or `=`, if a name stands there. */
function afterName(text: string, at: number, work: Work): [number, number] | undefined {
  const name = firstAt(text, at, NAMES, work);
  if (name === undefined) return undefined;
  let i = skip(text, at + name.length, isGapCharacter, work);
  if (startsWithLower(text, i, "header", work)) i = skip(text, i + 6, isGapCharacter, work);
  if (text[i] !== ":" && text[i] !== "=") return undefined;
  const start = skip(text, i + 1, isGapCharacter, work);
  let end = tokenEnd(text, start, work);
  if (end === start) return undefined;
  // A scheme word and its credential go together: `Bearer sk-...`.
  if (isWord(text, start, end)) {
    const next = skip(text, end, isBlank, work);
    const after = tokenEnd(text, next, work);
    if (next > end && after > next) end = after;
  }
  return [start, end];
}

/** The credential after a scheme at `at`, if a scheme and a credential stand there. */
function afterScheme(text: string, at: number, work: Work): [number, number] | undefined {
  if (at > 0 && isWordCharacter(text.charCodeAt(at - 1))) return undefined;
  const scheme = firstAt(text, at, SCHEMES, work);
  if (scheme === undefined) return undefined;
  const start = skip(text, at + scheme.length, isBlank, work);
  if (start === at + scheme.length) return undefined;
  const end = tokenEnd(text, start, work);
  return looksLikeCredential(text.slice(start, end)) ? [start, end] : undefined;
}

/** The first of `words` that `text` has at `at`. */
function firstAt(
  text: string,
  at: number,
  words: readonly string[],
  work: Work,
): string | undefined {
  for (const word of words) if (startsWithLower(text, at, word, work)) return word;
  return undefined;
}

/** Whether `text` has `lower` at `at`, ASCII letters compared in either case. */
function startsWithLower(text: string, at: number, lower: string, work: Work): boolean {
  for (let k = 0; k < lower.length; k++) {
    work.steps++;
    const code = text.charCodeAt(at + k);
    if ((isAsciiLetter(code) ? code | 0x20 : code) !== lower.charCodeAt(k)) return false;
  }
  return true;
}

/** The position after at most {@linkcode GAP} characters that `test` takes. */
function skip(text: string, at: number, test: (code: number) => boolean, work: Work): number {
  let i = at;
  while (i < text.length && i - at < GAP && test(text.charCodeAt(i))) {
    work.steps++;
    i++;
  }
  return i;
}

/** The end of the token at `at`: up to white space, a quote, a backslash or punctuation. */
function tokenEnd(text: string, at: number, work: Work): number {
  let i = at;
  while (i < text.length && !endsToken(text.charCodeAt(i))) {
    work.steps++;
    i++;
  }
  return i;
}

function endsToken(code: number): boolean {
  // " ' \ , ; } ] ) & < >
  return isSpace(code) || code === 0x22 || code === 0x27 || code === 0x5c || code === 0x2c ||
    code === 0x3b || code === 0x7d || code === 0x5d || code === 0x29 || code === 0x26 ||
    code === 0x3c || code === 0x3e;
}

/** What may stand between a name and its value: blanks, quotes, backslashes of escaped JSON. */
function isGapCharacter(code: number): boolean {
  return isBlank(code) || code === 0x22 || code === 0x27 || code === 0x5c;
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

function isWordCharacter(code: number): boolean {
  return isAsciiLetter(code) || isAsciiDigit(code) || code === 0x5f;
}

/** Whether the token is letters only, as a scheme is. */
function isWord(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isAsciiLetter(text.charCodeAt(i))) return false;
  return true;
}

/**
 * Whether a word after a bare scheme is a credential rather than prose
 * (`Basic information`): long enough, with a digit or a symbol, or with
 * capitals past its first letter as base64 has.
 */
function looksLikeCredential(word: string): boolean {
  if (word.length < MIN_CREDENTIAL) return false;
  return /[^A-Za-z]/.test(word) || /[A-Z]/.test(word.slice(1)) && /[a-z]/.test(word);
}
