import assert from "node:assert/strict";
import { Cohere } from "../../components/assistants/cohere.ts";
import {
  cohereEvents,
  cohereFake,
  collect,
  configured,
  requestOf,
  sse,
  streaming,
} from "./_providers.ts";

Deno.test("Cohere posts the chat to CO_API_URL/v2/chat with the key, and the sources in the prompt only", async () => {
  const { path, headers, body } = await requestOf(Cohere, cohereFake);
  assert.equal(path, "/v2/chat");
  assert.equal(headers.get("authorization"), "Bearer co-test");
  assert.equal(headers.get("content-type"), "application/json");
  const request = body as Record<string, unknown>;
  assert.equal(request.max_tokens, 64);
  assert.equal(request.documents, undefined, "the sources are in the prompt only");
  const messages = request.messages as { role: string }[];
  assert.deepEqual(messages.map((message) => message.role), ["system", "user"]);
});

Deno.test("Cohere ends at MAX_TOKENS without an error", async () => {
  await using server = streaming(cohereEvents(["Cut"], { end: { finish_reason: "MAX_TOKENS" } }));
  assert.deepEqual(await collect(configured(Cohere, cohereFake.env(server.url))), {
    texts: ["Cut"],
  });
});

Deno.test("Cohere reports a message-end with finish reason ERROR or TIMEOUT, even without an error", async () => {
  for (const reason of ["ERROR", "TIMEOUT"]) {
    await using server = streaming(cohereEvents(["ok"], { end: { finish_reason: reason } }));
    const { texts, error } = await collect(configured(Cohere, cohereFake.env(server.url)));
    assert.deepEqual(texts, ["ok"]);
    assert.equal(error?.status, 502);
    assert.equal(
      error?.message,
      `Cohere answered with an error: the generation failed (finish reason "${reason}")`,
    );
  }
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
  const { texts, error } = await collect(configured(Cohere, cohereFake.env(server.url)));
  assert.equal(error, undefined);
  assert.deepEqual(texts, ["Revenue grew."]);
});
