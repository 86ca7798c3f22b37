/**
 * cl100k tokens of a text, counted word by word from a cache, with the same
 * result as encoding the whole text at once.
 *
 * cl100k cuts a text into pre-tokens by a regular expression before it merges
 * bytes, and the pre-tokens never cross the point between a letter and a
 * following character that is no letter: every pre-token that holds a letter
 * is letters after at most one other character, so the one that holds the
 * letter ends there; the expression looks at no character before its
 * position, so the pre-tokens after that point are those of the rest alone;
 * and the expression, at every position before it, reads no further than the
 * end of the run of letters, digits, spaces or other characters it starts in,
 * plus one character, all of which lie before the letter. So the tokens of
 * the text are the tokens of its pieces cut at those points, one after the
 * other. The pieces are mostly words with the space or punctuation before
 * them, and a document repeats them, so each is encoded once and kept.
 * @module
 */
import { decode, encode } from "gpt-tokenizer/encoding/cl100k_base";

/** Pieces longer than this are encoded each time rather than kept: they seldom repeat. */
const MAX_KEPT_LENGTH = 64;
/** The most pieces kept; the cache is dropped whole when full, which is rare and cheap. */
const MAX_KEPT = 200_000;
const kept = new Map<string, number[]>();

const LETTER = 1;
const OTHER = 2;
const UNSURE = 3;
/** What each UTF-16 unit is, as far as cutting goes: 0 for not looked up yet. */
const kinds = new Uint8Array(0x10000);
const LETTER_PATTERN = /^\p{L}$/u;

function kindOf(unit: number): number {
  let kind = kinds[unit]!;
  if (kind === 0) {
    // Half of a surrogate pair may be half of a letter: no cut is made next to it.
    if (unit >= 0xd800 && unit <= 0xdfff) kind = UNSURE;
    else kind = LETTER_PATTERN.test(String.fromCharCode(unit)) ? LETTER : OTHER;
    kinds[unit] = kind;
  }
  return kind;
}

function tokensOfPiece(piece: string): number[] {
  let tokens = kept.get(piece);
  if (tokens === undefined) {
    tokens = encode(piece);
    if (piece.length <= MAX_KEPT_LENGTH) {
      if (kept.size >= MAX_KEPT) kept.clear();
      kept.set(piece, tokens);
    }
  }
  return tokens;
}

/**
 * Calls `visit` with each piece of `text` in order, and where it ends: cut
 * after every letter that a character other than a letter follows (a cut).
 */
function eachPiece(text: string, visit: (piece: string, end: number) => void): void {
  let start = 0;
  let afterLetter = false;
  for (let i = 0; i < text.length; i++) {
    const kind = kindOf(text.charCodeAt(i));
    if (afterLetter && kind === OTHER) {
      visit(text.slice(start, i), i);
      start = i;
    }
    afterLetter = kind === LETTER;
  }
  if (start < text.length) visit(text.slice(start), text.length);
}

/**
 * Whether the text may hold a special token (`<|endoftext|>`), which the
 * tokenizer refuses: such a text is encoded whole, so that it is refused as
 * before.
 */
function maySpecial(text: string): boolean {
  return text.includes("<|");
}

/**
 * The cl100k tokens of a text: the same as `encode()` of `gpt-tokenizer`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encode } from "gpt-tokenizer/encoding/cl100k_base";
 * import { encodeTokens } from "./token_counts.ts";
 * const text = "Bread needs flour. It needs water, 250 ml!\n\n";
 * assert.deepEqual(encodeTokens(text), encode(text));
 * ```
 */
export function encodeTokens(text: string): number[] {
  if (maySpecial(text)) return encode(text);
  const tokens: number[] = [];
  eachPiece(text, (piece) => {
    for (const token of tokensOfPiece(piece)) tokens.push(token);
  });
  return tokens;
}

/**
 * The number of cl100k tokens of a text: the length of `encode()` of
 * `gpt-tokenizer`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { countTokens } from "./token_counts.ts";
 * assert.equal(countTokens("Bread needs flour."), 5);
 * ```
 */
export function countTokens(text: string): number {
  if (maySpecial(text)) return encode(text).length;
  let count = 0;
  eachPiece(text, (piece) => {
    count += tokensOfPiece(piece).length;
  });
  return count;
}

/**
 * The tokens of a text, and the span between its first and last cut with the
 * tokens of that span, by which the tokens of a longer text that holds it are
 * counted without reading it again ({@linkcode isCut}).
 */
export interface MeasuredText {
  /** The number of the text's tokens. */
  tokens: number;
  /** Where its first cut is, or -1 when it has none. */
  first: number;
  /** Where its last cut is, or -1 when it has none. */
  last: number;
  /** The number of tokens of the text from `first` to `last`. */
  inner: number;
  /** Where each piece ends and the tokens up to there, when asked for. */
  pieces?: Pieces;
}

/**
 * The pieces of a text (cut after every letter that a character other than a
 * letter follows): where each ends, and how many tokens the text holds up to there.
 */
export interface Pieces {
  ends: number[];
  tokens: number[];
}

/**
 * {@linkcode countTokens} of a text, with where its first and last cut are
 * and the tokens between them, and its pieces when `withPieces`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { countTokens, measureTokens } from "./token_counts.ts";
 * const text = "Bread needs flour.";
 * const { tokens, first, last, inner } = measureTokens(text);
 * assert.equal(tokens, countTokens(text));
 * assert.equal(text.slice(first, last), " needs flour");
 * assert.equal(inner, countTokens(" needs flour"));
 * ```
 */
export function measureTokens(text: string, withPieces = false): MeasuredText {
  if (maySpecial(text)) {
    return { tokens: encode(text).length, first: -1, last: -1, inner: 0 };
  }
  const pieces: Pieces | undefined = withPieces ? { ends: [], tokens: [] } : undefined;
  let tokens = 0;
  let first = -1;
  let last = -1;
  let atFirst = 0;
  let atLast = 0;
  eachPiece(text, (piece, end) => {
    tokens += tokensOfPiece(piece).length;
    if (pieces) {
      pieces.ends.push(end);
      pieces.tokens.push(tokens);
    }
    // Every piece but the last ends at a cut.
    if (end === text.length) return;
    if (first < 0) [first, atFirst] = [end, tokens];
    [last, atLast] = [end, tokens];
  });
  return { tokens, first, last, inner: atLast - atFirst, ...pieces ? { pieces } : {} };
}

/**
 * A text cut into windows of `limit` of its tokens, each decoded and measured
 * again: a window may end inside a word, or inside a character whose bytes
 * two tokens share (decoded as U+FFFD), and then count more than `limit`.
 */
export function tokenWindows(text: string, limit: number): MeasuredPart[] {
  const ids = encode(text);
  const windows: MeasuredPart[] = [];
  for (let first = 0; first < ids.length; first += limit) {
    const window = decode(ids.slice(first, first + limit));
    windows.push({ text: window, measured: measureTokens(window) });
  }
  return windows;
}

/** A part of a text and its tokens, as {@linkcode measureTokens} measures it. */
export interface MeasuredPart {
  text: string;
  measured: MeasuredText;
}

/**
 * A text cut into windows of at most `limit` tokens, of whole pieces (mostly
 * words with what comes before them) from the pieces it was measured with,
 * without reading it again; a piece longer than `limit` tokens is cut into
 * windows of its tokens. The windows, one after the other, are the text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { measureTokens, pieceWindows } from "./token_counts.ts";
 * const text = "Bread needs flour, water and salt.";
 * const windows = pieceWindows(text, measureTokens(text, true).pieces!, 3);
 * assert.deepEqual(windows.map((window) => window.text), ["Bread needs", " flour, water", " and salt."]);
 * assert.deepEqual(windows.map((window) => window.measured), windows.map((window) => measureTokens(window.text)));
 * ```
 */
export function pieceWindows(text: string, pieces: Pieces, limit: number): MeasuredPart[] {
  const { ends, tokens } = pieces;
  const windows: MeasuredPart[] = [];
  // The window is pieces `from` to `to` - 1; `before`, the tokens before it.
  let from = 0;
  const close = (to: number) => {
    const start = from === 0 ? 0 : ends[from - 1]!;
    const before = from === 0 ? 0 : tokens[from - 1]!;
    const measured: MeasuredText = to - from === 1
      ? { tokens: tokens[from]! - before, first: -1, last: -1, inner: 0 }
      : {
        tokens: tokens[to - 1]! - before,
        first: ends[from]! - start,
        last: ends[to - 2]! - start,
        inner: tokens[to - 2]! - tokens[from]!,
      };
    windows.push({ text: text.slice(start, ends[to - 1]), measured });
    from = to;
  };
  for (let i = 0; i < ends.length; i++) {
    const before = from === 0 ? 0 : tokens[from - 1]!;
    if (i > from && tokens[i]! - before > limit) close(i);
    const pieceTokens = tokens[i]! - (i === 0 ? 0 : tokens[i - 1]!);
    if (pieceTokens <= limit) continue;
    windows.push(...tokenWindows(text.slice(i === 0 ? 0 : ends[i - 1], ends[i]), limit));
    from = i + 1;
  }
  if (from < ends.length) close(ends.length);
  return windows;
}

/**
 * Whether `at` is a cut of the text: a letter before it and, after it, a
 * character other than a letter or the text's end. The tokens of a text are
 * those of its part before a cut and of its part after it, one after the other.
 */
export function isCut(text: string, at: number): boolean {
  if (at <= 0 || at > text.length || kindOf(text.charCodeAt(at - 1)) !== LETTER) return false;
  return at === text.length || kindOf(text.charCodeAt(at)) === OTHER;
}
