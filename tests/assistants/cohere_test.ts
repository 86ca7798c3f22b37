import assert from "node:assert/strict";
import { INSTRUCTION } from "../../components/assistants/_prompt.ts";
import { Cohere } from "../../components/assistants/cohere.ts";
import { displayNameOf } from "../../components/core/component.ts";
import { SvcError } from "../../components/core/errors.ts";
import { FakeServer } from "./_fake_server.ts";
import {
  chatParams,
  cohereEvents,
  cohereFake,
  configured,
  SOURCES,
  sse,
  SSE_HEADERS,
} from "./_providers.ts";

async function answer(
  assistant: typeof Cohere,
  params = chatParams(),
): Promise<{ texts: string[]; error?: SvcError }> {
  const texts: string[] = [];
  try {
    for await (const text of new assistant().answer("What grew?", SOURCES, params)) {
      texts.push(text);
    }
    return { texts };
  } catch (error) {
    assert.ok(error instanceof SvcError, `an SvcError, not ${error}`);
    return { texts, error };
  }
}

/** A server that streams `events`, then closes. */
function streaming(events: string[]): FakeServer {
  return new FakeServer([(s) => s.feed(events, { headers: SSE_HEADERS })]);
}

Deno.test("Cohere posts the chat to CO_API_URL/v2/chat with the key, the model and a stream", async () => {
  await using server = new FakeServer([(s) => cohereFake.answer(s, ["Revenue", " grew [1]."])]);
  const assistant = configured(Cohere, cohereFake.env(server.url));
  const { texts } = await answer(assistant, chatParams(undefined, { max_new_tokens: 64 }));
  assert.deepEqual(texts, ["Revenue", " grew [1]."]);
  const { path, headers, body } = server.last;
  assert.equal(path, "/v2/chat");
  assert.equal(headers.get("authorization"), "Bearer co-test");
  assert.equal(headers.get("content-type"), "application/json");
  const request = body as Record<string, unknown>;
  assert.equal(request.model, "command-test");
  assert.equal(request.max_tokens, 64);
  assert.equal(request.temperature, 0);
  assert.equal(request.stream, true);
  assert.equal(request.documents, undefined, "the sources are in the prompt only");
  const messages = request.messages as { role: string; content: string }[];
  assert.deepEqual(messages.map((message) => message.role), ["system", "user"]);
  assert.equal(messages[0]!.content, INSTRUCTION);
  assert.match(messages[1]!.content, /^Sources:\n\n\[1\] report\.pdf, pages 1-3:\n/);
  assert.match(messages[1]!.content, /\n\nQuestion: What grew\?$/);
});

Deno.test("Cohere passes on Cohere's own message for a wrong key", async () => {
  await using server = new FakeServer([() => cohereFake.error(401, "invalid api token")]);
  const { error } = await answer(configured(Cohere, cohereFake.env(server.url)));
  assert.equal(error?.status, 502);
  assert.equal(error?.message, "Cohere answered 401: invalid api token");
  assert.equal(server.requests.length, 1);
});

Deno.test("Cohere ends a complete answer at message-end without an error", async () => {
  // The stream stays open after message-end: the answer must not wait for its close.
  await using server = new FakeServer([
    (s) => s.feed(cohereEvents(["Revenue", " grew."]), { headers: SSE_HEADERS, hold: true }),
  ]);
  const { texts, error } = await answer(configured(Cohere, cohereFake.env(server.url)));
  assert.equal(error, undefined);
  assert.deepEqual(texts, ["Revenue", " grew."]);
});

Deno.test("Cohere ends at MAX_TOKENS without an error", async () => {
  await using server = streaming(cohereEvents(["Cut"], { end: { finish_reason: "MAX_TOKENS" } }));
  assert.deepEqual(await answer(configured(Cohere, cohereFake.env(server.url))), {
    texts: ["Cut"],
  });
});

Deno.test("Cohere reports a message-end with an error, or with finish reason ERROR", async () => {
  await using failed = streaming(cohereEvents(["ok"], {
    end: { finish_reason: "ERROR", error: "internal server error, this has been reported" },
  }));
  const first = await answer(configured(Cohere, cohereFake.env(failed.url)));
  assert.deepEqual(first.texts, ["ok"]);
  assert.equal(first.error?.status, 502);
  assert.equal(
    first.error?.message,
    "Cohere answered with an error: internal server error, this has been reported",
  );

  await using silent = streaming(cohereEvents(["ok"], { end: { finish_reason: "ERROR" } }));
  const second = await answer(configured(Cohere, cohereFake.env(silent.url)));
  assert.equal(
    second.error?.message,
    'Cohere answered with an error: the generation failed (finish reason "ERROR")',
  );
});

Deno.test("Cohere skips a reasoning model's thoughts", async () => {
  const [start, , ...rest] = cohereEvents(["Revenue grew."]);
  await using server = streaming([
    start!,
    sse({
      type: "content-start",
      index: 0,
      delta: { message: { content: { type: "thinking", thinking: "" } } },
    }, "content-start"),
    sse({
      type: "content-delta",
      index: 0,
      delta: { message: { content: { thinking: "Source 1 says" } } },
    }, "content-delta"),
    sse({ type: "content-end", index: 0 }, "content-end"),
    sse({
      type: "content-start",
      index: 1,
      delta: { message: { content: { type: "text", text: "" } } },
    }, "content-start"),
    ...rest,
  ]);
  const { texts, error } = await answer(configured(Cohere, cohereFake.env(server.url)));
  assert.equal(error, undefined);
  assert.deepEqual(texts, ["Revenue grew."]);
});

Deno.test("Cohere reports a stream that ends before message-end", async () => {
  await using server = streaming(cohereEvents(["Half"], { hold: true }));
  const { texts, error } = await answer(configured(Cohere, cohereFake.env(server.url)));
  assert.deepEqual(texts, ["Half"]);
  assert.equal(
    error?.message,
    "Cohere sent malformed stream data: the stream ended before the answer was finished",
  );
});

Deno.test("Cohere needs COHERE_API_KEY, and says so", async () => {
  const without = configured(Cohere, {});
  assert.equal(await without.isAvailable(), false);
  assert.deepEqual(
    without.requirements.map(({ kind, name }) => `${kind} ${name}`),
    ["env COHERE_API_KEY"],
  );
  assert.equal(await configured(Cohere, { COHERE_API_KEY: "co" }).isAvailable(), true);
  const { error } = await answer(without);
  assert.equal(
    error?.message,
    'Cohere needs the environment variable "COHERE_API_KEY", which is unset',
  );
});

Deno.test("Cohere's display name names the model of SVC_COHERE_MODEL, else the default", () => {
  assert.equal(displayNameOf(configured(Cohere, {})), "Cohere/command-a-03-2025");
  assert.equal(
    displayNameOf(configured(Cohere, { SVC_COHERE_MODEL: "command-r-plus" })),
    "Cohere/command-r-plus",
  );
});
