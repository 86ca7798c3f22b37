/**
 * Text handled in linear time: what the hand-written scanners share (a count
 * of the work they do, so that a test can prove them linear by counting, and
 * the character classes they test one code unit at a time), and loops that
 * stand for regular expressions that read runs of characters again and again.
 * @module
 */

/**
 * A count of the characters a scanner looked at; a test passes one and
 * checks that the count grows no faster than the text.
 */
export interface Work {
  /** Characters looked at so far. */
  steps: number;
}

/**
 * Whether the UTF-16 code unit is white space as a regular expression's `\s`
 * reads it: the Unicode spaces, the line terminators and U+FEFF.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isSpace } from "./text_scan.ts";
 * assert(isSpace(" ".charCodeAt(0)) && isSpace(0x3000) && !isSpace("a".charCodeAt(0)));
 * ```
 */
export function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f ||
    code === 0x3000 || code === 0xfeff;
}

/** Whether the code unit is an ASCII letter. */
export function isAsciiLetter(code: number): boolean {
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x7a;
}

/** Whether the code unit is an ASCII digit. */
export function isAsciiDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * The text without the slashes it ends with: what `.replace(/\/+$/, "")`
 * gives, without that expression's cost, which reads a run of slashes again
 * from each of its slashes when the run does not end the text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trimSlashes } from "./text_scan.ts";
 * assert.equal(trimSlashes("http://h/v1//"), "http://h/v1");
 * assert.equal(trimSlashes("a//b"), "a//b");
 * ```
 */
export function trimSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
  return text.slice(0, end);
}

/**
 * The text without the spaces and tabs around its line breaks: what
 * replacing each match of `[ \t]*\n[ \t]*` by a line break gives, without
 * that expression's cost, which reads a run of spaces again from each of its
 * spaces when no line break ends it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tightLines } from "./text_scan.ts";
 * assert.equal(tightLines(" a \t\n  b \n\n c "), " a\nb\n\nc ");
 * ```
 */
export function tightLines(text: string): string {
  const lines = text.split("\n");
  return lines.map((line, i) => {
    let start = 0;
    let end = line.length;
    if (i > 0) { while (start < end && isBlank(line.charCodeAt(start))) start++; }
    if (i < lines.length - 1) { while (end > start && isBlank(line.charCodeAt(end - 1))) end--; }
    return line.slice(start, end);
  }).join("\n");
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}
