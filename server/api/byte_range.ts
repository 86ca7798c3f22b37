/**
 * The `Range` header of a request for a file: one range of bytes, as HTTP
 * reads it (RFC 9110, section 14).
 * @module
 */

/** The longest `Range` header read: one range of two numbers, with room for white space. */
const MAX_RANGE_HEADER = 200;

/** The first and last byte of a range, both included. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The range a `Range` header asks of a file of `size` bytes: a range within
 * the file (cut at its end), `"unsatisfiable"` when none of it is in the
 * file (answered with 416), or `undefined` when the whole file is to be sent:
 * no header, a header that is not a single range of bytes (several ranges
 * are sent as the whole file, which HTTP allows), or one that does not parse.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { byteRange } from "./byte_range.ts";
 * assert.deepEqual(byteRange("bytes=0-99", 1000), { start: 0, end: 99 });
 * assert.deepEqual(byteRange("bytes=900-", 1000), { start: 900, end: 999 });
 * assert.deepEqual(byteRange("bytes=-100", 1000), { start: 900, end: 999 });
 * assert.deepEqual(byteRange("bytes=990-2000", 1000), { start: 990, end: 999 });
 * assert.equal(byteRange("bytes=1000-", 1000), "unsatisfiable");
 * assert.equal(byteRange("bytes=0-1, 5-9", 1000), undefined);
 * ```
 */
export function byteRange(
  header: string | undefined,
  size: number,
): ByteRange | "unsatisfiable" | undefined {
  // No range svc serves is longer; the expression below reads a run of white space again from
  // each of its characters, so it only ever sees a header this short.
  if (header === undefined || header.length > MAX_RANGE_HEADER) return undefined;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return undefined;
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return undefined;
  if (first === "") {
    // The last `last` bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (last !== "" && Number(last) < start) return undefined;
  if (start >= size) return "unsatisfiable";
  const end = last === "" ? size - 1 : Number(last);
  return { start, end: Math.min(end, size - 1) };
}
