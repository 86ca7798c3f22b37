import assert from "node:assert/strict";
import {
  excerpt,
  gaveUp,
  malformed,
  providerError,
  providerMessage,
  retryAfter,
  streamError,
  timeoutError,
  unreachable,
} from "../../components/assistants/_errors.ts";

Deno.test("providerError() names the provider, its status and its message, as a 502", () => {
  const error = providerError("OpenAI", {
    httpStatus: 401,
    message: " Incorrect API key provided ",
  });
  assert.equal(error.message, "OpenAI answered 401: Incorrect API key provided");
  assert.equal(error.status, 502);
  assert.equal(error.httpStatus, 401);
  assert.equal(
    providerError("Ollama", { httpStatus: 500, message: "" }).message,
    "Ollama answered 500, without saying why",
  );
});

Deno.test("a provider error is worth retrying for 429 and 5xx only", () => {
  assert.deepEqual(
    [400, 401, 404, 429, 500, 503].map((status) =>
      providerError("X", { httpStatus: status, message: "" }).retryable
    ),
    [false, false, false, true, true, true],
  );
  assert.equal(streamError("X", "boom").retryable, false);
});

Deno.test("gaveUp() counts the tries and keeps the status", () => {
  const error = gaveUp(providerError("OpenAI", { httpStatus: 503, message: "Overloaded" }), 3);
  assert.equal(error.message, "OpenAI answered 503: Overloaded (tried 3 times)");
  assert.equal(error.httpStatus, 503);
});

Deno.test("providerMessage() finds the message in each provider's error body", () => {
  const bodies: [unknown, string][] = [
    [{ error: { message: "Bad key", type: "invalid_request_error", code: null } }, "Bad key"],
    [{ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, "Overloaded"],
    [
      { error: { code: 400, message: "API key not valid", status: "INVALID_ARGUMENT" } },
      "API key not valid",
    ],
    [[{ error: { code: 429, message: "Quota exceeded" } }], "Quota exceeded"],
    [{ message: "invalid api token" }, "invalid api token"],
    [{ detail: "Forbidden" }, "Forbidden"],
    [{ error: "model 'x' not found" }, "model 'x' not found"],
    ['{"error":{"message":"From text"}}', "From text"],
    ["Bad Gateway", "Bad Gateway"],
    [{ unrelated: true }, ""],
    ["", ""],
  ];
  for (const [body, message] of bodies) assert.equal(providerMessage(body), message);
  assert.ok(providerMessage(`<html>${"x ".repeat(500)}</html>`).length <= 300);
});

Deno.test("retryAfter() reads milliseconds, seconds and dates", () => {
  assert.equal(retryAfter(new Headers({ "retry-after-ms": "250" })), 250);
  assert.equal(retryAfter(new Headers({ "retry-after": "2" })), 2000);
  assert.equal(retryAfter(new Headers({ "retry-after": "0.5" })), 500);
  // The wait runs from when the header is read: between these two readings of the clock.
  const date = new Date(Date.now() + 10_000).toUTCString();
  const before = Date.now();
  const wait = retryAfter(new Headers({ "retry-after": date }))!;
  const after = Date.now();
  assert.ok(Date.parse(date) - after <= wait && wait <= Date.parse(date) - before, `${wait}`);
  assert.equal(retryAfter(new Headers({ "retry-after": "soon" })), undefined);
  assert.equal(retryAfter(new Headers()), undefined);
  assert.equal(retryAfter(undefined), undefined);
});

Deno.test("timeoutError() is a 504 that says whether the text had started", () => {
  const silent = timeoutError("OpenAI", 60_000);
  assert.equal(silent.status, 504);
  assert.equal(silent.message, "OpenAI did not answer within 60 s");
  assert.equal(
    timeoutError("Ollama", 250, { started: true }).message,
    "Ollama stopped answering for 0.25 s",
  );
});

Deno.test("unreachable() shows the URL without its query, which may hold a key", () => {
  const error = unreachable(
    "Gemini",
    "https://example.com/v1beta/models/m:streamGenerateContent?key=SECRET&alt=sse",
    { cause: new TypeError("connection refused") },
  );
  assert.equal(
    error.message,
    'Cannot reach Gemini at "https://example.com/v1beta/models/m:streamGenerateContent": ' +
      "connection refused",
  );
  assert.equal(error.status, 502);
});

Deno.test("malformed() says what is wrong with the stream data", () => {
  const error = malformed("Ollama", `a line is not an object: ${excerpt([1, 2])}`);
  assert.equal(error.message, "Ollama sent malformed stream data: a line is not an object: [1,2]");
  assert.equal(error.status, 502);
  assert.ok(excerpt({ text: "y".repeat(500) }).length <= 120);
});

Deno.test("providerMessage() shows no body that is not a message: echoed JSON, markup, data", () => {
  const request = { model: "m", messages: [{ role: "user", content: "secret sources" }] };
  const bodies = [
    JSON.stringify({ echo: { headers: { authorization: "Bearer sk-1" }, body: request } }),
    JSON.stringify(request),
    `<html><body>${JSON.stringify(request)}</body></html>`,
    `{"model": "m", "messages": [ truncated`,
    `[${JSON.stringify(request)}]`,
  ];
  for (const body of bodies) assert.equal(providerMessage(body), "", body);
  assert.equal(
    providerMessage(
      `POST /v1/chat/completions\r\nauthorization: x\r\n\r\n${JSON.stringify(request)}`,
    ),
    "POST /v1/chat/completions",
  );
});

Deno.test("providerError() shows 300 characters of the provider's words, redacted", () => {
  const echoed = `Invalid request {"headers":{"Authorization":"Bearer sk-never-shown-1"},` +
    `"body":"${"x".repeat(100_000)}"}`;
  const error = providerError("OpenAI", { httpStatus: 400, message: echoed });
  assert.ok(!error.message.includes("sk-never-shown-1"), error.message);
  assert.ok(
    error.message.startsWith(
      'OpenAI answered 400: Invalid request {"headers":{"Authorization":"***"}',
    ),
  );
  assert.ok(error.message.endsWith("…"));
  assert.ok(
    error.message.length <= "OpenAI answered 400: ".length + 301,
    `${error.message.length}`,
  );
  assert.ok(!streamError("Ollama", echoed).message.includes("sk-never-shown-1"));
});
