import assert from "node:assert/strict";
import { ProviderError } from "../../components/assistants/_errors.ts";
import { jsonLines, postJson, serverSentEvents } from "../../components/assistants/_http.ts";
import { closedUrl, FakeServer } from "./_fake_server.ts";

function body(...pieces: string[]): ReadableStream<Uint8Array> {
  return ReadableStream.from(pieces).pipeThrough(new TextEncoderStream());
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ProviderError, `a ProviderError, not ${error}`);
    return error;
  }
  throw new Error("It did not fail");
}

const signal = () => new AbortController().signal;

Deno.test("postJson() posts JSON with the given headers and returns the response", async () => {
  await using server = new FakeServer([() => new Response("streamed")]);
  const response = await postJson(`${server.url}/v1/chat`, { question: "Why?" }, {
    provider: "Example",
    signal: signal(),
    headers: { "x-api-key": "k" },
  });
  assert.equal(await response.text(), "streamed");
  assert.equal(server.last.method, "POST");
  assert.equal(server.last.path, "/v1/chat");
  assert.equal(server.last.headers.get("content-type"), "application/json");
  assert.equal(server.last.headers.get("x-api-key"), "k");
  assert.deepEqual(server.last.body, { question: "Why?" });
});

Deno.test("postJson() turns an error response into a ProviderError with its message", async () => {
  await using server = new FakeServer([
    () =>
      Response.json({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, {
        status: 529,
        headers: { "retry-after": "3" },
      }),
    () => new Response("", { status: 503, statusText: "Service Unavailable" }),
  ]);
  const overloaded = await failure(
    postJson(server.url, {}, { provider: "Example", signal: signal() }),
  );
  assert.equal(overloaded.message, "Example answered 529: Overloaded");
  assert.equal(overloaded.httpStatus, 529);
  assert.equal(overloaded.retryAfter, 3000);
  assert.equal(overloaded.retryable, true);
  const bare = await failure(postJson(server.url, {}, { provider: "Example", signal: signal() }));
  assert.equal(bare.message, "Example answered 503: Service Unavailable");
});

Deno.test("postJson() says which server it cannot reach", async () => {
  const url = await closedUrl();
  const error = await failure(
    postJson(`${url}/api/chat`, {}, { provider: "Example", signal: signal() }),
  );
  assert.match(error.message, new RegExp(`^Cannot reach Example at "${url}/api/chat": `));
  assert.equal(error.retryable, false);
});

Deno.test("postJson() passes an abort on as it is", async () => {
  await using server = new FakeServer([() => new Response("late")]);
  await assert.rejects(
    postJson(server.url, {}, { provider: "Example", signal: AbortSignal.abort() }),
    (error: Error) => error.name === "AbortError",
  );
});

Deno.test("jsonLines() parses lines split across chunks and skips blank ones", async () => {
  const values = await Array.fromAsync(
    jsonLines(body('{"n":1}\n\n{"n"', ':2}\r\n  \n{"n":3}'), "Example"),
  );
  assert.deepEqual(values, [{ n: 1 }, { n: 2 }, { n: 3 }]);
});

Deno.test("jsonLines() reports a line that is not JSON", async () => {
  const lines = jsonLines(body('{"n":1}\n{oops\n{"n":2}\n'), "Example");
  const seen: unknown[] = [];
  const error = await failure((async () => {
    for await (const value of lines) seen.push(value);
  })());
  assert.deepEqual(seen, [{ n: 1 }]);
  assert.equal(error.message, 'Example sent malformed stream data: a line is not JSON: "{oops"');
  assert.equal(error.status, 502);
});

Deno.test("serverSentEvents() gives each event's name and JSON data, until [DONE]", async () => {
  const events = await Array.fromAsync(serverSentEvents(
    body(
      ": a comment\n",
      'event: message_start\ndata: {"a":',
      "1}\n\n",
      'data: {"b":\ndata: 2}\n\n',
      "data: [DONE]\n\n",
      'data: {"after":true}\n\n',
    ),
    "Example",
  ));
  assert.deepEqual(events, [
    { event: "message_start", data: { a: 1 } },
    { event: undefined, data: { b: 2 } },
  ]);
});

Deno.test("serverSentEvents() reports data that is not JSON", async () => {
  const error = await failure(
    Array.fromAsync(serverSentEvents(body("data: {oops\n\n"), "Example")),
  );
  assert.equal(
    error.message,
    'Example sent malformed stream data: an event\'s data is not JSON: "{oops"',
  );
});
