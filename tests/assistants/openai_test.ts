import assert from "node:assert/strict";
import { OpenAI, OpenAICompatible } from "../../components/assistants/openai.ts";
import { Rag } from "../../components/rag.ts";
import { SvcDemoSourceStorage } from "../../components/source_storages/demo.ts";
import { tmpDir, writeFile } from "../test_utils.ts";
import { FakeServer, within } from "./_fake_server.ts";
import {
  configured,
  firstTextPieces,
  openaiCompatibleFake,
  openaiFake,
  requestOf,
} from "./_providers.ts";

Deno.test("OpenAI posts the chat to OPENAI_BASE_URL with the key, the organization and max_completion_tokens", async () => {
  const { path, headers, body } = await requestOf(OpenAI, openaiFake, () => ({
    OPENAI_ORG_ID: "org-test",
  }));
  assert.equal(path, "/v1/chat/completions");
  assert.equal(headers.get("authorization"), "Bearer sk-test");
  assert.equal(headers.get("openai-organization"), "org-test");
  const request = body as Record<string, unknown>;
  assert.equal(request.max_completion_tokens, 64);
  assert.equal(request.max_tokens, undefined);
  const messages = request.messages as { role: string }[];
  assert.deepEqual(messages.map((message) => message.role), ["system", "user"]);
});

Deno.test("OpenAICompatible asks with max_tokens and sends no key unless it has one", async () => {
  const keyless = await requestOf(OpenAICompatible, openaiCompatibleFake);
  assert.equal(keyless.path, "/v1/chat/completions");
  const request = keyless.body as Record<string, unknown>;
  assert.equal(request.max_tokens, 64);
  assert.equal(request.max_completion_tokens, undefined);
  assert.equal(keyless.headers.get("authorization"), null);

  const keyed = await requestOf(OpenAICompatible, openaiCompatibleFake, () => ({
    SVC_OPENAI_COMPATIBLE_API_KEY: "local-key",
  }));
  assert.equal(keyed.headers.get("authorization"), "Bearer local-key");
});

Deno.test("OpenAI streams a chat's answer through Rag, chunk by chunk", async () => {
  await using dir = await tmpDir();
  const path = await writeFile(dir.path, "report.txt", "Revenue grew by 42 % in 2024.\n");
  const texts = ["Revenue", " grew by 42 %", " [1]."];
  // The pieces after the first text's are held until it is here.
  const held = Promise.withResolvers<void>();
  const gate = { after: firstTextPieces(openaiFake, texts), open: held.promise };
  await using server = new FakeServer([(s) => openaiFake.answer(s, texts, { gate })]);
  const chat = new Rag().chat({
    documents: [path],
    sourceStorage: SvcDemoSourceStorage,
    assistant: configured(OpenAI, openaiFake.env(server.url)),
    params: { max_new_tokens: 50 },
  });
  await chat.prepare();
  const message = await chat.answer("What grew?", { stream: true });
  const iterator = message[Symbol.asyncIterator]();
  // An answer that waited for the whole stream would wait for ever: this guards the hang.
  const first = await within(iterator.next(), 60_000, "the first text");
  assert.ok(server.feeds[0]!.sent < server.feeds[0]!.total);
  held.resolve();
  const chunks = [first.value];
  for (let step = await iterator.next(); !step.done; step = await iterator.next()) {
    chunks.push(step.value);
  }
  assert.deepEqual(chunks, texts);
  assert.equal(message.content, texts.join(""));
  const request = server.last.body as {
    max_completion_tokens: number;
    messages: { content: string }[];
  };
  assert.equal(request.max_completion_tokens, 50);
  assert.match(request.messages[1]!.content, /\[1\] report\.txt:\nRevenue grew by 42 % in 2024\./);
});

Deno.test("OpenAICompatible is unavailable when its server lists models but not its own", async () => {
  const models = (...ids: string[]) => () => Response.json({ data: ids.map((id) => ({ id })) });
  const env = (url: string) => ({
    SVC_OPENAI_COMPATIBLE_URL: `${url}/v1`,
    SVC_OPENAI_COMPATIBLE_MODEL: "local-model",
  });
  await using other = new FakeServer([models("another-model")]);
  assert.equal(await configured(OpenAICompatible, env(other.url)).isAvailable(), false);
  assert.ok(other.requests.some((request) => request.path === "/v1/models"));
  await using served = new FakeServer([models("another-model", "local-model")]);
  assert.equal(await configured(OpenAICompatible, env(served.url)).isAvailable(), true);
});
