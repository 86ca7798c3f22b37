import assert from "node:assert/strict";
import { INSTRUCTION } from "../../components/assistants/_prompt.ts";
import { Anthropic } from "../../components/assistants/anthropic.ts";
import { displayNameOf } from "../../components/core/component.ts";
import { SvcError } from "../../components/core/errors.ts";
import { FakeServer } from "./_fake_server.ts";
import {
  anthropicEvents,
  anthropicFake,
  chatParams,
  configured,
  SOURCES,
  sse,
  SSE_HEADERS,
} from "./_providers.ts";

async function answer(
  assistant: typeof Anthropic,
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

Deno.test("Anthropic posts the messages to ANTHROPIC_BASE_URL with the key, the version and a stream", async () => {
  await using server = new FakeServer([(s) => anthropicFake.answer(s, ["Revenue", " grew [1]."])]);
  const assistant = configured(Anthropic, {
    ...anthropicFake.env(server.url),
    ANTHROPIC_BASE_URL: `${server.url}/`,
  });
  const { texts } = await answer(assistant, chatParams(undefined, { max_new_tokens: 64 }));
  assert.deepEqual(texts, ["Revenue", " grew [1]."]);
  const { path, headers, body } = server.last;
  assert.equal(path, "/v1/messages");
  assert.equal(headers.get("x-api-key"), "sk-ant-test");
  assert.equal(headers.get("anthropic-version"), "2023-06-01");
  assert.equal(headers.get("authorization"), null);
  assert.equal(headers.get("content-type"), "application/json");
  const request = body as Record<string, unknown>;
  assert.deepEqual(Object.keys(request).sort(), [
    "max_tokens",
    "messages",
    "model",
    "stream",
    "system",
    "temperature",
  ]);
  assert.equal(request.model, "claude-test");
  assert.equal(request.max_tokens, 64);
  assert.equal(request.temperature, 0);
  assert.equal(request.stream, true);
  assert.equal(request.system, INSTRUCTION);
  const messages = request.messages as { role: string; content: string }[];
  assert.equal(messages.length, 1);
  assert.equal(messages[0]!.role, "user");
  assert.match(messages[0]!.content, /^Sources:\n\n\[1\] report\.pdf, pages 1-3:\n/);
  assert.match(messages[0]!.content, /\n\nQuestion: What grew\?$/);
});

Deno.test("Anthropic passes on Anthropic's own message for a wrong key", async () => {
  await using server = new FakeServer([
    () => anthropicFake.error(401, "invalid x-api-key"),
  ]);
  const { error } = await answer(configured(Anthropic, anthropicFake.env(server.url)));
  assert.equal(error?.status, 502);
  assert.equal(error?.message, "Anthropic answered 401: invalid x-api-key");
  assert.equal(server.requests.length, 1);
});

Deno.test("Anthropic tries again while it answers 529, then says it was overloaded", async () => {
  await using server = new FakeServer([() => anthropicFake.error(529, "Overloaded")]);
  const { error } = await answer(configured(Anthropic, anthropicFake.env(server.url)));
  assert.equal(error?.status, 502);
  assert.equal(error?.message, "Anthropic answered 529: Overloaded (tried 3 times)");
  assert.equal(server.requests.length, 3);
});

Deno.test("Anthropic reports an error event inside the stream", async () => {
  const overloaded = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
  await using server = streaming([
    ...anthropicEvents(["ok"], true),
    sse(overloaded, "error"),
  ]);
  const { texts, error } = await answer(configured(Anthropic, anthropicFake.env(server.url)));
  assert.deepEqual(texts, ["ok"]);
  assert.equal(error?.status, 502);
  assert.equal(error?.message, "Anthropic answered with an error: Overloaded");
});

Deno.test("Anthropic skips pings, thinking, and event types it does not know", async () => {
  const [start, blockStart, ping, ...rest] = anthropicEvents(["Revenue", " grew."]);
  await using server = streaming([
    start!,
    sse({ type: "content_block_start", index: 0, content_block: { type: "thinking" } }, "x"),
    sse({
      type: "content_block_delta",
      index: 0,
      delta: { type: "thinking_delta", thinking: "The sources say" },
    }, "content_block_delta"),
    sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
    sse({ type: "a_future_event", detail: {} }, "a_future_event"),
    blockStart!,
    ping!,
    ping!,
    ...rest,
  ]);
  const { texts, error } = await answer(configured(Anthropic, anthropicFake.env(server.url)));
  assert.equal(error, undefined);
  assert.deepEqual(texts, ["Revenue", " grew."]);
});

Deno.test("Anthropic reports a refusal as a 502 after the text it gave", async () => {
  await using server = streaming([
    ...anthropicEvents(["I"], true),
    sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
    sse({
      type: "message_delta",
      delta: { stop_reason: "refusal", stop_sequence: null },
      usage: { output_tokens: 1 },
    }, "message_delta"),
    sse({ type: "message_stop" }, "message_stop"),
  ]);
  const { texts, error } = await answer(configured(Anthropic, anthropicFake.env(server.url)));
  assert.deepEqual(texts, ["I"]);
  assert.equal(error?.status, 502);
  assert.equal(error?.message, 'Anthropic refused to answer (stop reason "refusal")');
});

Deno.test("Anthropic ends the answer at message_stop and when max_tokens is reached", async () => {
  await using server = new FakeServer([(s) =>
    s.feed([
      ...anthropicEvents(["Cut"], true),
      sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
      sse({
        type: "message_delta",
        delta: { stop_reason: "max_tokens", stop_sequence: null },
        usage: { output_tokens: 1 },
      }, "message_delta"),
      sse({ type: "message_stop" }, "message_stop"),
    ], { headers: SSE_HEADERS, hold: true })]);
  const { texts, error } = await answer(configured(Anthropic, anthropicFake.env(server.url)));
  assert.equal(error, undefined);
  assert.deepEqual(texts, ["Cut"]);
});

Deno.test("Anthropic reports a stream that ends before message_stop", async () => {
  await using server = streaming(anthropicEvents(["Half"], true));
  const { texts, error } = await answer(configured(Anthropic, anthropicFake.env(server.url)));
  assert.deepEqual(texts, ["Half"]);
  assert.equal(error?.status, 502);
  assert.equal(
    error?.message,
    "Anthropic sent malformed stream data: the stream ended before the answer was finished",
  );
});

Deno.test("Anthropic reports a text delta without text", async () => {
  await using server = streaming([
    ...anthropicEvents(["ok"], true),
    sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta" } }, "x"),
  ]);
  const { texts, error } = await answer(configured(Anthropic, anthropicFake.env(server.url)));
  assert.deepEqual(texts, ["ok"]);
  assert.match(
    error?.message ?? "",
    /^Anthropic sent malformed stream data: a text delta has no text: /,
  );
});

Deno.test("Anthropic needs ANTHROPIC_API_KEY, and says so", async () => {
  const without = configured(Anthropic, {});
  assert.equal(await without.isAvailable(), false);
  assert.deepEqual(
    without.requirements.map(({ kind, name }) => `${kind} ${name}`),
    ["env ANTHROPIC_API_KEY"],
  );
  assert.equal(await configured(Anthropic, { ANTHROPIC_API_KEY: "sk-ant" }).isAvailable(), true);
  const { error } = await answer(without);
  assert.equal(
    error?.message,
    'Anthropic needs the environment variable "ANTHROPIC_API_KEY", which is unset',
  );
});

Deno.test("Anthropic's display name names the model of SVC_ANTHROPIC_MODEL, else the default", () => {
  assert.equal(displayNameOf(configured(Anthropic, {})), "Anthropic/claude-sonnet-4-6");
  assert.equal(
    displayNameOf(configured(Anthropic, { SVC_ANTHROPIC_MODEL: "claude-opus-4-5" })),
    "Anthropic/claude-opus-4-5",
  );
});
