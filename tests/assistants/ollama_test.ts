import assert from "node:assert/strict";
import { INSTRUCTION } from "../../components/assistants/_prompt.ts";
import { Ollama } from "../../components/assistants/ollama.ts";
import { displayNameOf } from "../../components/core/component.ts";
import { SvcError } from "../../components/core/errors.ts";
import { closedUrl, FakeServer } from "./_fake_server.ts";
import { chatParams, configured, ollamaFake, ollamaLines, SOURCES } from "./_providers.ts";

const NDJSON = { "content-type": "application/x-ndjson" };

async function answer(
  assistant: typeof Ollama,
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

Deno.test("Ollama posts the chat to /api/chat with num_predict, temperature 0 and a stream", async () => {
  await using server = new FakeServer([(s) => ollamaFake.answer(s, ["Revenue", " grew [1]."])]);
  const assistant = configured(Ollama, ollamaFake.env(server.url));
  const { texts } = await answer(assistant, chatParams(undefined, { max_new_tokens: 64 }));
  assert.deepEqual(texts, ["Revenue", " grew [1]."]);
  const { path, headers, body } = server.last;
  assert.equal(path, "/api/chat");
  assert.equal(headers.get("content-type"), "application/json");
  assert.equal(headers.get("authorization"), null);
  const request = body as Record<string, unknown>;
  assert.equal(request.model, "llama-test");
  assert.equal(request.stream, true);
  assert.deepEqual(request.options, { num_predict: 64, temperature: 0 });
  const messages = request.messages as { role: string; content: string }[];
  assert.deepEqual(messages.map((message) => message.role), ["system", "user"]);
  assert.equal(messages[0]!.content, INSTRUCTION);
  assert.match(messages[1]!.content, /\n\nQuestion: What grew\?$/);
});

Deno.test("Ollama passes on Ollama's message for a model it does not have", async () => {
  await using server = new FakeServer([
    () => ollamaFake.error(404, "model 'llama-test' not found"),
  ]);
  const { error } = await answer(configured(Ollama, ollamaFake.env(server.url)));
  assert.equal(error?.status, 502);
  assert.equal(error?.message, "Ollama answered 404: model 'llama-test' not found");
});

Deno.test("Ollama reports an error line inside the stream", async () => {
  await using server = new FakeServer([(s) =>
    s.feed([
      ...ollamaLines(["ok"], true),
      '{"error":"an error was encountered while running the model"}\n',
    ], { headers: NDJSON })]);
  const { texts, error } = await answer(configured(Ollama, ollamaFake.env(server.url)));
  assert.deepEqual(texts, ["ok"]);
  assert.equal(error?.status, 502);
  assert.equal(
    error?.message,
    "Ollama answered with an error: an error was encountered while running the model",
  );
});

Deno.test("Ollama reports a stream that ends before its done line", async () => {
  await using server = new FakeServer([
    (s) => s.feed(ollamaLines(["Half"], true), { headers: NDJSON }),
  ]);
  const { texts, error } = await answer(configured(Ollama, ollamaFake.env(server.url)));
  assert.deepEqual(texts, ["Half"]);
  assert.equal(
    error?.message,
    'Ollama sent malformed stream data: the stream ended before its last line ("done": true)',
  );
});

Deno.test("Ollama reads OLLAMA_HOST as Ollama does", async () => {
  const host = (value?: string) => configured(Ollama, value ? { OLLAMA_HOST: value } : {}).host();
  assert.equal(host(), "http://127.0.0.1:11434");
  assert.equal(host("0.0.0.0"), "http://0.0.0.0:11434");
  assert.equal(host("example.com:8080"), "http://example.com:8080");
  assert.equal(host("https://ollama.example.com/"), "https://ollama.example.com");
  await using server = new FakeServer([(s) => ollamaFake.answer(s, ["Yes."])]);
  const schemeless = configured(Ollama, { OLLAMA_HOST: server.url.replace("http://", "") });
  assert.deepEqual((await answer(schemeless)).texts, ["Yes."]);
});

Deno.test("Ollama is available when its server answers", async () => {
  await using server = new FakeServer([() => new Response("Ollama is running")]);
  const running = configured(Ollama, { OLLAMA_HOST: server.url });
  assert.deepEqual(
    running.requirements.map(({ kind, name }) => `${kind} ${name}`),
    [`server Ollama at "${server.url}"`],
  );
  assert.equal(await running.isAvailable(), true);
  assert.equal(server.last.path, "/");
  assert.equal(await configured(Ollama, { OLLAMA_HOST: await closedUrl() }).isAvailable(), false);
});

Deno.test("Ollama's display name names the model of SVC_OLLAMA_MODEL, else the default", () => {
  assert.equal(displayNameOf(configured(Ollama, {})), "Ollama/llama3.2");
  assert.equal(
    displayNameOf(configured(Ollama, { SVC_OLLAMA_MODEL: "qwen3:8b" })),
    "Ollama/qwen3:8b",
  );
});
