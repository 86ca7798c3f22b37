import assert from "node:assert/strict";
import { excerpt, jsonExcerpt, quote, unavailable } from "../../components/core/errors.ts";
import { secrets } from "../../components/core/secrets.ts";
import { writtenAsJson } from "./_json_written.ts";

Deno.test("excerpt() keeps a short text whole and cuts a long one around a …", () => {
  assert.equal(excerpt("report.pdf"), "report.pdf");
  const exact = "x".repeat(141);
  assert.equal(excerpt(exact), exact);
  const name = `${"A".repeat(64_000)}.pdf`;
  assert.equal(excerpt(name), `${"A".repeat(100)}…${"A".repeat(36)}.pdf`);
  assert.equal(excerpt(name, { head: 10, tail: 0 }), `${"A".repeat(10)}…`);
});

Deno.test("excerpt() never cuts a surrogate pair in half", () => {
  // Each cut falls between the two halves of a pair: the pair goes.
  const cut = excerpt(`x${"🦕".repeat(200)}y`);
  assert.equal(cut, `x${"🦕".repeat(49)}…${"🦕".repeat(19)}y`);
  assert.equal(excerpt("🦕".repeat(200)), `${"🦕".repeat(50)}…${"🦕".repeat(20)}`);
});

Deno.test("excerpt() hides a secret that its cut would halve, which nothing could find after", () => {
  const key = "sk-across-the-cut-0123456789";
  secrets.add(key);
  for (let at = 80; at < 100; at++) {
    const cut = excerpt(`${"x".repeat(at)}${key}${"y".repeat(500)}`);
    for (let length = 4; length <= key.length; length++) {
      assert.ok(!cut.includes(key.slice(0, length)), `${at}: ${cut}`);
    }
  }
  const tail = excerpt(`${"y".repeat(500)}${key}${"x".repeat(30)}`);
  assert.ok(!tail.includes(key.slice(-12)), tail);
});

Deno.test("quote() quotes an excerpt of a long value, of 1 MB as of 1 KB", () => {
  assert.equal(quote("report.pdf"), '"report.pdf"');
  assert.equal(quote(42), '"42"');
  for (const size of [1024, 1024 * 1024]) {
    const quoted = quote("a".repeat(size));
    assert.equal(quoted, `"${"a".repeat(100)}…${"a".repeat(40)}"`);
  }
});

Deno.test("jsonExcerpt() shows what the excerpt of the whole JSON shows", () => {
  const long = (unit: string) => unit.repeat(Math.ceil(900_000 / unit.length));
  const values: unknown[] = [
    null,
    42,
    [1, "two", { three: 3 }],
    "x".repeat(141),
    long("C"),
    long("🦕"),
    `x${long("🦕")}y`,
    long('"\\\n\u0000'),
    { chunk_size: long("C"), also: [long("🦕"), 1] },
    [long("a"), long("b"), long("c")],
    `https://user:pw@host/${long("p")}`,
  ];
  for (const value of values) assert.equal(jsonExcerpt(value), excerpt(JSON.stringify(value)));
});

Deno.test("jsonExcerpt() of a value of 1 MB writes a few kilobytes of JSON, not the value", () => {
  const value = { chunk_size: "C".repeat(1024 * 1024), also: ["D".repeat(1024 * 1024)] };
  const written = writtenAsJson(() => jsonExcerpt(value));
  assert.ok(written < 4096, `${written} characters written`);
  assert.ok(writtenAsJson(() => jsonExcerpt("C".repeat(1024 * 1024))) < 2048);
});

Deno.test("unavailable() says what cannot be used, and why, without the secrets of its URL", () => {
  const url = "libsql://ada:hunter2@db-box:8080?authToken=s3cr3t";
  const cause = new Error(`connect to ${url} refused; token s3cr3t`);
  const error = unavailable('Cannot open the LibSQL database "db-box"', cause, url);
  assert.equal(error.status, 503);
  assert.equal(error.cause, cause);
  assert.match(error.message, /^Cannot open the LibSQL database "db-box": connect to /);
  assert.ok(!/hunter2|s3cr3t/.test(error.message), error.message);
  assert.equal(unavailable("Cannot open x", "no disk").message, "Cannot open x: no disk");
});
