import assert from "node:assert/strict";
import { Ollama } from "../../components/assistants/ollama.ts";
import { FakeServer } from "./_fake_server.ts";
import { collect, configured, ollamaFake, requestOf } from "./_providers.ts";

Deno.test("Ollama posts the chat to /api/chat with num_predict, temperature 0 and no key", async () => {
  const { path, headers, body } = await requestOf(Ollama, ollamaFake);
  assert.equal(path, "/api/chat");
  assert.equal(headers.get("content-type"), "application/json");
  assert.equal(headers.get("authorization"), null);
  const request = body as { options: unknown; messages: { role: string }[] };
  assert.deepEqual(request.options, { num_predict: 64, temperature: 0 });
  assert.deepEqual(request.messages.map((message) => message.role), ["system", "user"]);
});

Deno.test("Ollama reads OLLAMA_HOST as Ollama does", async () => {
  const host = (value?: string) => configured(Ollama, value ? { OLLAMA_HOST: value } : {}).host();
  assert.equal(host(), "http://127.0.0.1:11434");
  assert.equal(host("0.0.0.0"), "http://0.0.0.0:11434");
  assert.equal(host("example.com:8080"), "http://example.com:8080");
  assert.equal(host("https://ollama.example.com/"), "https://ollama.example.com");
  await using server = new FakeServer([(s) => ollamaFake.answer(s, ["Yes."])]);
  const schemeless = configured(Ollama, { OLLAMA_HOST: server.url.replace("http://", "") });
  assert.deepEqual((await collect(schemeless)).texts, ["Yes."]);
});

Deno.test("Ollama is available when its server answers at the root of OLLAMA_HOST", async () => {
  await using server = new FakeServer([() => new Response("Ollama is running")]);
  const running = configured(Ollama, { OLLAMA_HOST: server.url });
  assert.equal(await running.isAvailable(), true);
  assert.deepEqual(
    server.requests.map(({ method, path }) => `${method} ${path}`).sort(),
    ["GET /", "GET /api/tags"],
  );
});

Deno.test("Ollama is unavailable when its server lists models but not its own", async () => {
  const tags = (...names: string[]) => () =>
    Response.json({ models: names.map((name) => ({ name, details: { family: "llama" } })) });
  await using other = new FakeServer([tags("qwen2.5:latest")]);
  const missing = configured(Ollama, { OLLAMA_HOST: other.url, SVC_OLLAMA_MODEL: "llama3.2" });
  assert.equal(await missing.isAvailable(), false);
  assert.ok(other.requests.some((request) => request.path === "/api/tags"));
  // A name without a tag is the latest one, as Ollama reads it.
  await using served = new FakeServer([tags("llama3.2:latest")]);
  const found = configured(Ollama, { OLLAMA_HOST: served.url, SVC_OLLAMA_MODEL: "llama3.2" });
  assert.equal(await found.isAvailable(), true);
});
