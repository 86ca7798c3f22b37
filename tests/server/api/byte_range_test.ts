import assert from "node:assert/strict";
import { byteRange } from "../../../server/api/byte_range.ts";

Deno.test("byteRange() reads a first-last, an open-ended and a suffix range", () => {
  assert.deepEqual(byteRange("bytes=10-19", 100), { start: 10, end: 19 });
  assert.deepEqual(byteRange("bytes=90-", 100), { start: 90, end: 99 });
  assert.deepEqual(byteRange("bytes=-10", 100), { start: 90, end: 99 });
  assert.deepEqual(byteRange("BYTES = 0 - 0", 100), { start: 0, end: 0 });
});

Deno.test("byteRange() cuts a range at the end of the file", () => {
  assert.deepEqual(byteRange("bytes=50-500", 100), { start: 50, end: 99 });
  assert.deepEqual(byteRange("bytes=-500", 100), { start: 0, end: 99 });
});

Deno.test("byteRange() finds a range that starts past the end, or is empty, unsatisfiable", () => {
  assert.equal(byteRange("bytes=100-", 100), "unsatisfiable");
  assert.equal(byteRange("bytes=100-200", 100), "unsatisfiable");
  assert.equal(byteRange("bytes=-0", 100), "unsatisfiable");
  assert.equal(byteRange("bytes=0-", 0), "unsatisfiable");
});

Deno.test("byteRange() sends the whole file for no header, several ranges or one that does not parse", () => {
  for (const header of [undefined, "bytes=0-1,5-9", "items=0-5", "bytes=5-1", "bytes=-", "0-5"]) {
    assert.equal(byteRange(header, 100), undefined, String(header));
  }
});

Deno.test("byteRange() sends the whole file for a Range header of 1 MB, which no expression reads", () => {
  const lengths: number[] = [];
  const exec = RegExp.prototype.exec;
  RegExp.prototype.exec = function (this: RegExp, text: string) {
    lengths.push(String(text).length);
    return exec.call(this, text);
  };
  try {
    for (const header of [`bytes=1-${" ".repeat(1 << 20)}x`, `bytes=${" ".repeat(1 << 20)}1-2`]) {
      assert.equal(byteRange(header, 100), undefined);
    }
    assert.deepEqual(byteRange(` bytes = 1 - 2${" ".repeat(150)}`, 100), { start: 1, end: 2 });
  } finally {
    RegExp.prototype.exec = exec;
  }
  assert.ok(lengths.length > 0 && lengths.every((length) => length <= 200), `${lengths}`);
});
