import assert from "node:assert/strict";
import { Anthropic } from "../../components/assistants/anthropic.ts";
import { FakeServer } from "./_fake_server.ts";
import {
  anthropicEvents,
  anthropicFake,
  collect,
  configured,
  requestOf,
  sse,
  SSE_HEADERS,
  streaming,
} from "./_providers.ts";

Deno.test("Anthropic posts the messages to ANTHROPIC_BASE_URL with the key, the version and a stream", async () => {
  const { path, headers, body } = await requestOf(Anthropic, anthropicFake, (url) => ({
    ANTHROPIC_BASE_URL: `${url}/`,
  }));
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
  assert.equal(request.max_tokens, 64);
  const messages = request.messages as { role: string }[];
  assert.deepEqual(messages.map((message) => message.role), ["user"]);
});

Deno.test("Anthropic tries again while it answers 529, then says it was overloaded", async () => {
  await using server = new FakeServer([() => anthropicFake.error(529, "Overloaded")]);
  const { error } = await collect(configured(Anthropic, anthropicFake.env(server.url)));
  assert.equal(error?.status, 502);
  assert.equal(error?.message, "Anthropic answered 529: Overloaded (tried 3 times)");
  assert.equal(server.requests.length, 3);
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
  const { texts, error } = await collect(configured(Anthropic, anthropicFake.env(server.url)));
  assert.equal(error, undefined);
  assert.deepEqual(texts, ["Revenue", " grew."]);
});

Deno.test("Anthropic reports a refusal as a 502 after the text it gave", async () => {
  await using server = streaming(anthropicEvents(["I"], { stopReason: "refusal" }));
  const { texts, error } = await collect(configured(Anthropic, anthropicFake.env(server.url)));
  assert.deepEqual(texts, ["I"]);
  assert.equal(error?.status, 502);
  assert.equal(error?.message, 'Anthropic refused to answer (stop reason "refusal")');
});

Deno.test("Anthropic ends the answer at message_stop when max_tokens is reached", async () => {
  await using server = new FakeServer([
    (s) =>
      s.feed(anthropicEvents(["Cut"], { stopReason: "max_tokens" }), {
        headers: SSE_HEADERS,
        hold: true,
      }),
  ]);
  const { texts, error } = await collect(configured(Anthropic, anthropicFake.env(server.url)));
  assert.equal(error, undefined);
  assert.deepEqual(texts, ["Cut"]);
});

Deno.test("Anthropic reports a text delta without text", async () => {
  await using server = streaming([
    ...anthropicEvents(["ok"], { unfinished: true }),
    sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta" } }, "x"),
  ]);
  const { texts, error } = await collect(configured(Anthropic, anthropicFake.env(server.url)));
  assert.deepEqual(texts, ["ok"]);
  assert.match(
    error?.message ?? "",
    /^Anthropic sent malformed stream data: a text delta has no text: /,
  );
});
