import assert from "node:assert/strict";
import { redactUrl, redactUrls } from "../../components/core/redact_url.ts";

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
