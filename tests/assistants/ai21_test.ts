import assert from "node:assert/strict";
import { INSTRUCTION } from "../../components/assistants/_prompt.ts";
import { AI21 } from "../../components/assistants/ai21.ts";
import { displayNameOf } from "../../components/core/component.ts";
import { SvcError } from "../../components/core/errors.ts";
import { FakeServer } from "./_fake_server.ts";
import {
  ai21Events,
  ai21Fake,
  chatParams,
  configured,
  SOURCES,
  sse,
  SSE_HEADERS,
} from "./_providers.ts";

async function answer(
  assistant: typeof AI21,
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

Deno.test("AI21 posts the chat to AI21 Studio's chat completions with the key, the model and a stream", async () => {
  await using server = new FakeServer([(s) => ai21Fake.answer(s, ["Revenue", " grew [1]."])]);
  const assistant = configured(AI21, ai21Fake.env(server.url));
  const { texts } = await answer(assistant, chatParams(undefined, { max_new_tokens: 64 }));
  assert.deepEqual(texts, ["Revenue", " grew [1]."]);
  const { path, headers, body } = server.last;
  assert.equal(path, "/studio/v1/chat/completions");
  assert.equal(headers.get("authorization"), "Bearer ai21-test");
  assert.equal(headers.get("content-type"), "application/json");
  const request = body as Record<string, unknown>;
  assert.equal(request.model, "jamba-test");
  assert.equal(request.max_tokens, 64);
  assert.equal(request.temperature, 0);
  assert.equal(request.stream, true);
  const messages = request.messages as { role: string; content: string }[];
  assert.deepEqual(messages.map((message) => message.role), ["system", "user"]);
  assert.equal(messages[0]!.content, INSTRUCTION);
  assert.match(messages[1]!.content, /^Sources:\n\n\[1\] report\.pdf, pages 1-3:\n/);
  assert.match(messages[1]!.content, /\n\nQuestion: What grew\?$/);
});

Deno.test("AI21 takes AI21_BASE_URL as a host or as the API's root", async () => {
  await using server = new FakeServer([(s) => ai21Fake.answer(s, ["Yes."])]);
  for (const base of [server.url, `${server.url}/`, `${server.url}/studio/v1`]) {
    const assistant = configured(AI21, { ...ai21Fake.env(server.url), AI21_BASE_URL: base });
    assert.deepEqual(await answer(assistant), { texts: ["Yes."] }, base);
    assert.equal(server.last.path, "/studio/v1/chat/completions", base);
  }
  const proxied = configured(AI21, {
    ...ai21Fake.env(server.url),
    AI21_BASE_URL: `${server.url}/ai21/v1/`,
  });
  await answer(proxied);
  assert.equal(server.last.path, "/ai21/v1/chat/completions");
});

Deno.test("AI21 passes on AI21's own message for a wrong key", async () => {
  const message = "Forbidden: Bad or missing API token.";
  await using server = new FakeServer([() => ai21Fake.error(401, message)]);
  const { error } = await answer(configured(AI21, ai21Fake.env(server.url)));
  assert.equal(error?.status, 502);
  assert.equal(error?.message, `AI21 answered 401: ${message}`);
  assert.equal(server.requests.length, 1);
});

Deno.test("AI21 reports an error inside the stream", async () => {
  await using server = new FakeServer([(s) =>
    s.feed([
      ...ai21Events(["ok"], true),
      sse({ error: { message: "Internal server error", type: "server_error" } }),
    ], { headers: SSE_HEADERS })]);
  const { texts, error } = await answer(configured(AI21, ai21Fake.env(server.url)));
  assert.deepEqual(texts, ["ok"]);
  assert.equal(error?.status, 502);
  assert.equal(error?.message, "AI21 answered with an error: Internal server error");
});

Deno.test("AI21 reports a stream that ends without a finish reason", async () => {
  await using server = new FakeServer([
    (s) => s.feed(ai21Events(["Half"], true), { headers: SSE_HEADERS }),
  ]);
  const { texts, error } = await answer(configured(AI21, ai21Fake.env(server.url)));
  assert.deepEqual(texts, ["Half"]);
  assert.equal(
    error?.message,
    "AI21 sent malformed stream data: the stream ended before the answer was finished",
  );
});

Deno.test("AI21 needs AI21_API_KEY, and says so", async () => {
  const without = configured(AI21, {});
  assert.equal(await without.isAvailable(), false);
  assert.deepEqual(
    without.requirements.map(({ kind, name }) => `${kind} ${name}`),
    ["env AI21_API_KEY"],
  );
  assert.equal(await configured(AI21, { AI21_API_KEY: "key" }).isAvailable(), true);
  const { error } = await answer(without);
  assert.equal(
    error?.message,
    'AI21 needs the environment variable "AI21_API_KEY", which is unset',
  );
});

Deno.test("AI21's display name names the model of SVC_AI21_MODEL, else the default", () => {
  assert.equal(displayNameOf(configured(AI21, {})), "AI21/jamba-large");
  assert.equal(
    displayNameOf(configured(AI21, { SVC_AI21_MODEL: "jamba-mini" })),
    "AI21/jamba-mini",
  );
});
