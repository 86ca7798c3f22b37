import assert from "node:assert/strict";
import { redactUrl, redactUrls, urlSpans } from "../../components/core/redact_url.ts";

Deno.test("redactUrl() keeps the scheme, host and path, and drops the password, query and fragment", () => {
  assert.equal(
    redactUrl("https://ada:hunter2@api.example.com:8443/v1/chat?key=secret&x=1#token=secret"),
    "https://api.example.com:8443/v1/chat",
  );
  assert.equal(redactUrl("libsql://ada@db.example.io?authToken=secret"), "libsql://db.example.io");
  assert.equal(redactUrl("http://[::1]:11434"), "http://[::1]:11434");
});

Deno.test("redactUrl() keeps a path as written, an @ in it included", () => {
  assert.equal(redactUrl("sqlite:///data/my files/svc.db"), "sqlite:///data/my files/svc.db");
  assert.equal(redactUrl("sqlite:///data/@ada/svc.db"), "sqlite:///data/@ada/svc.db");
  assert.equal(redactUrl("http://host/users/@ada?key=secret"), "http://host/users/@ada");
  assert.equal(redactUrl("sqlite://"), "sqlite://");
});

Deno.test("redactUrl() hides every part of a password that is not a valid URL", () => {
  // "/" and "?" in a password, unescaped, end the host for a URL parser.
  assert.equal(redactUrl("http://ada:pa/ss@host:8000/v1"), "http://host:8000/v1");
  assert.equal(redactUrl("http://ada:pa?ss@host:8000/v1"), "http://host:8000/v1");
  assert.equal(redactUrl("http://ada:pa#ss@host:8000/v1"), "http://host:8000/v1");
  // Without a scheme, as OLLAMA_HOST may be written.
  assert.equal(redactUrl("ada:hunter2@gpu-box:11434"), "gpu-box:11434");
  assert.equal(redactUrl("not a URL"), "not a URL");
});

Deno.test("redactUrls() reduces each URL of a text and leaves the rest", () => {
  assert.equal(
    redactUrls(
      "error sending request for url (http://ada:pw@127.0.0.1:8000/v1/chat?key=secret): " +
        'tcp connect error; see "https://docs.example.com/errors?id=7" or <ws://ada:pw@h/s#x>',
    ),
    "error sending request for url (http://127.0.0.1:8000/v1/chat): " +
      'tcp connect error; see "https://docs.example.com/errors" or <ws://h/s>',
  );
  assert.equal(redactUrls("(http://h/p?key=a)b), then"), "(http://h/p), then");
  assert.equal(
    redactUrls('Cannot read "report.pdf": no URL here'),
    'Cannot read "report.pdf": no URL here',
  );
});

Deno.test("redactUrls() hides the secret parts of given URLs wherever they show", () => {
  const url =
    "http://ada-lovelace:hunter2%21@db.internal:8080/v1?authToken=tok-secret&tls=0#frag-secret";
  const text = 'URL fragments are not supported: "#frag-secret"; token tok-secret; ' +
    "user ada-lovelace, password hunter2!; tls=0 on http://db.internal:8080/v1";
  assert.equal(
    redactUrls(text, { secretsOf: [url] }),
    'URL fragments are not supported: "#***"; token ***; user ***, password ***; ' +
      "tls=0 on http://db.internal:8080/v1",
  );
});

/** The spans the expression `urlSpans()` stands for finds, as it finds them. */
function regexSpans(text: string): [number, number][] {
  return [...text.matchAll(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi)].map((match) => [
    match.index,
    match.index + match[0].length,
  ]);
}

Deno.test("urlSpans() finds what the regular expression of URLs in text finds", () => {
  const alphabet = ["a", "Z", "1", "+", ".", "-", ":", "/", "//", "://", " ", '"', "'", "<", "`"];
  const extra = ["(", ")", "@", "?", "#", "\u00a0", "\u3000", "\n", "é", "ſ", "K"];
  const pieces = [...alphabet, ...extra];
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let i = 0; i < 5000; i++) {
    const text = Array.from(
      { length: Math.floor(random() * 24) },
      () => pieces[Math.floor(random() * pieces.length)],
    ).join("");
    assert.deepEqual(urlSpans(text), regexSpans(text), JSON.stringify(text));
  }
  for (const text of ["http://a b://c", "x1-a.b+c://h/p?q", "9://h", "://h", "a://", "é://h"]) {
    assert.deepEqual(urlSpans(text), regexSpans(text), text);
  }
});

Deno.test("urlSpans() looks at each character of 1 MB of hostile text at most three times", () => {
  const size = 1024 * 1024;
  const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  // Runs of each class the expression loops on, and prefixes repeated without an end.
  const hostile = [
    "a",
    "a1+.-",
    "a:",
    ":/",
    "://",
    "1://",
    "a://",
    "a:// ",
    "-://",
    "((",
    "a://(x)",
  ]
    .map(fill);
  for (const text of [...hostile, `${fill("a")}://host`, `x://${fill("a")}`]) {
    const work = { steps: 0 };
    const spans = urlSpans(text, work);
    assert.ok(work.steps <= 3 * text.length, `${JSON.stringify(text.slice(0, 12))}: ${work.steps}`);
    assert.ok(spans.length <= text.length / 4 + 1);
    assert.equal(redactUrls(text).length <= text.length, true);
  }
  // The same text four times as long costs four times the work, not sixteen.
  const quarter = { steps: 0 };
  const whole = { steps: 0 };
  urlSpans(fill("ab").slice(0, size / 4), quarter);
  urlSpans(fill("ab"), whole);
  assert.equal(whole.steps, 4 * quarter.steps);
});
