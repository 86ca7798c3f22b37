import assert from "node:assert/strict";
import { INSTRUCTION } from "../../components/assistants/_prompt.ts";
import { OpenAI, OpenAICompatible } from "../../components/assistants/openai.ts";
import { displayNameOf } from "../../components/core/component.ts";
import { SvcError } from "../../components/core/errors.ts";
import { Rag } from "../../components/core/rag.ts";
import { SvcDemoSourceStorage } from "../../components/source_storages/demo.ts";
import { tmpDir, writeFile } from "../test_utils.ts";
import { closedUrl, FakeServer } from "./_fake_server.ts";
import {
  chatCompletionEvents,
  chatParams,
  configured,
  type ModelAssistantClass,
  openaiCompatibleFake,
  openaiErrorBody,
  openaiFake,
  SOURCES,
  SSE_HEADERS,
} from "./_providers.ts";

async function answer(
  assistant: ModelAssistantClass,
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

Deno.test("OpenAI posts the chat to OPENAI_BASE_URL with the key, the model and a stream", async () => {
  await using server = new FakeServer([(s) => openaiFake.answer(s, ["Revenue grew [1]."])]);
  const assistant = configured(OpenAI, {
    ...openaiFake.env(server.url),
    OPENAI_ORG_ID: "org-test",
  });
  const { texts } = await answer(assistant, chatParams(undefined, { max_new_tokens: 64 }));
  assert.deepEqual(texts, ["Revenue grew [1]."]);
  const { path, headers, body } = server.last;
  assert.equal(path, "/v1/chat/completions");
  assert.equal(headers.get("authorization"), "Bearer sk-test");
  assert.equal(headers.get("openai-organization"), "org-test");
  const request = body as Record<string, unknown>;
  assert.equal(request.model, "gpt-test");
  assert.equal(request.max_completion_tokens, 64);
  assert.equal(request.max_tokens, undefined);
  assert.equal(request.temperature, 0);
  assert.equal(request.stream, true);
  const messages = request.messages as { role: string; content: string }[];
  assert.deepEqual(messages.map((message) => message.role), ["system", "user"]);
  assert.equal(messages[0]!.content, INSTRUCTION);
  assert.match(messages[1]!.content, /^Sources:\n\n\[1\] report\.pdf, pages 1-3:\n/);
});

Deno.test("OpenAI passes on OpenAI's own message for a wrong key", async () => {
  const message = "Incorrect API key provided: sk-test. You can find your API key at " +
    "https://platform.openai.com/account/api-keys.";
  await using server = new FakeServer([() => openaiFake.error(401, message)]);
  const { error } = await answer(configured(OpenAI, openaiFake.env(server.url)));
  assert.equal(error?.status, 502);
  assert.equal(error?.message, `OpenAI answered 401: ${message}`);
});

Deno.test("OpenAI reports an error event inside the stream", async () => {
  const failure = {
    error: {
      message: "The server had an error while processing your request",
      type: "server_error",
    },
  };
  await using server = new FakeServer([
    (s) =>
      s.feed([...chatCompletionEvents(["ok"], true), `data: ${JSON.stringify(failure)}\n\n`], {
        headers: SSE_HEADERS,
      }),
  ]);
  const { texts, error } = await answer(
    configured(OpenAI, openaiFake.env(server.url)),
  );
  assert.deepEqual(texts, ["ok"]);
  assert.equal(error?.status, 502);
  assert.equal(
    error?.message,
    "OpenAI answered with an error: The server had an error while processing your request",
  );
});

Deno.test("OpenAI reports a stream that ends without a finish reason", async () => {
  await using server = new FakeServer([
    (s) => s.feed(chatCompletionEvents(["Half"], true), { headers: SSE_HEADERS }),
  ]);
  const { texts, error } = await answer(
    configured(OpenAI, openaiFake.env(server.url)),
  );
  assert.deepEqual(texts, ["Half"]);
  assert.equal(
    error?.message,
    "OpenAI sent malformed stream data: the stream ended before the answer was finished",
  );
});

Deno.test("OpenAI needs OPENAI_API_KEY, and says so", async () => {
  const without = configured(OpenAI, {});
  assert.equal(await without.isAvailable(), false);
  assert.deepEqual(
    without.requirements.map(({ kind, name }) => `${kind} ${name}`),
    ["env OPENAI_API_KEY"],
  );
  assert.equal(await configured(OpenAI, { OPENAI_API_KEY: "sk-test" }).isAvailable(), true);
  const { error } = await answer(without);
  assert.equal(
    error?.message,
    'OpenAI needs the environment variable "OPENAI_API_KEY", which is unset',
  );
});

Deno.test("OpenAI's display name names the model of SVC_OPENAI_MODEL, else the default", () => {
  assert.equal(displayNameOf(configured(OpenAI, {})), "OpenAI/gpt-4.1-mini");
  const chosen = configured(OpenAI, { SVC_OPENAI_MODEL: "gpt-4o" });
  assert.equal(displayNameOf(chosen), "OpenAI/gpt-4o");
  assert.equal(new chosen().displayName, "OpenAI/gpt-4o");
});

Deno.test("a subclass of OpenAI pins its model over SVC_OPENAI_MODEL", async () => {
  class Gpt41 extends (configured(OpenAI, {})) {
    static override model = "gpt-4.1";
  }
  await using server = new FakeServer([(s) => openaiFake.answer(s, ["Yes."])]);
  const pinned = configured(Gpt41, openaiFake.env(server.url));
  assert.equal(Gpt41.displayName, "OpenAI/gpt-4.1");
  assert.equal(pinned.displayName, "OpenAI/gpt-4.1");
  await answer(pinned);
  assert.equal((server.last.body as { model: string }).model, "gpt-4.1");
});

Deno.test("OpenAICompatible asks with max_tokens and sends no key unless it has one", async () => {
  await using server = new FakeServer([(s) => openaiCompatibleFake.answer(s, ["Yes."])]);
  const env = openaiCompatibleFake.env(server.url);
  const keyless = configured(OpenAICompatible, env);
  const { texts } = await answer(keyless, chatParams(undefined, { max_new_tokens: 32 }));
  assert.deepEqual(texts, ["Yes."]);
  const request = server.last.body as Record<string, unknown>;
  assert.equal(server.last.path, "/v1/chat/completions");
  assert.equal(request.model, "local-model");
  assert.equal(request.max_tokens, 32);
  assert.equal(request.max_completion_tokens, undefined);
  assert.equal(server.last.headers.get("authorization"), null);

  const keyed = configured(OpenAICompatible, {
    ...env,
    SVC_OPENAI_COMPATIBLE_API_KEY: "local-key",
  });
  await answer(keyed);
  assert.equal(server.last.headers.get("authorization"), "Bearer local-key");
});

Deno.test("OpenAICompatible passes on the error message of servers that shape it otherwise", async () => {
  const vllm = {
    object: "error",
    message: "This model's maximum context length is 4096 tokens",
    type: "BadRequestError",
    param: null,
    code: 400,
  };
  await using server = new FakeServer([
    () => Response.json(vllm, { status: 400 }),
    () => Response.json({ error: "Model not loaded" }, { status: 404 }),
  ]);
  const assistant = configured(
    OpenAICompatible,
    openaiCompatibleFake.env(server.url),
  );
  assert.equal(
    (await answer(assistant)).error?.message,
    "OpenAICompatible answered 400: This model's maximum context length is 4096 tokens",
  );
  assert.equal(
    (await answer(assistant)).error?.message,
    "OpenAICompatible answered 404: Model not loaded",
  );
});

Deno.test("OpenAICompatible is available when its URL and model are set and the server answers", async () => {
  assert.equal(await configured(OpenAICompatible, {}).isAvailable(), false);
  await using server = new FakeServer([() => new Response(openaiErrorBody(404, "Not found"))]);
  const env = openaiCompatibleFake.env(server.url);
  const available = configured(OpenAICompatible, env);
  assert.deepEqual(
    available.requirements.map(({ kind, name }) => `${kind} ${name}`),
    [
      "env SVC_OPENAI_COMPATIBLE_URL",
      "env SVC_OPENAI_COMPATIBLE_MODEL",
      `server OpenAI-compatible server at "${server.url}/v1"`,
    ],
  );
  assert.equal(await available.isAvailable(), true);
  const gone = configured(OpenAICompatible, {
    ...env,
    SVC_OPENAI_COMPATIBLE_URL: await closedUrl(),
  });
  assert.equal(await gone.isAvailable(), false);
});

Deno.test("OpenAICompatible's display name is its model, and it needs one", async () => {
  assert.equal(
    configured(OpenAICompatible, { SVC_OPENAI_COMPATIBLE_MODEL: "qwen3" }).displayName,
    "OpenAICompatible/qwen3",
  );
  const modelless = configured(OpenAICompatible, { SVC_OPENAI_COMPATIBLE_URL: "http://x/v1" });
  assert.equal(modelless.displayName, "OpenAICompatible");
  const { error } = await answer(modelless);
  assert.equal(
    error?.message,
    'OpenAICompatible needs the environment variable "SVC_OPENAI_COMPATIBLE_MODEL", which is unset',
  );
});

Deno.test("OpenAI streams a chat's answer through Rag, chunk by chunk", async () => {
  await using dir = await tmpDir();
  const path = await writeFile(dir.path, "report.txt", "Revenue grew by 42 % in 2024.\n");
  const texts = ["Revenue", " grew by 42 %", " [1]."];
  await using server = new FakeServer([(s) => openaiFake.answer(s, texts, { delay: 40 })]);
  const chat = new Rag().chat({
    documents: [path],
    sourceStorage: SvcDemoSourceStorage,
    assistant: configured(OpenAI, openaiFake.env(server.url)),
    params: { max_new_tokens: 50 },
  });
  await chat.prepare();
  const message = await chat.answer("What grew?", { stream: true });
  const chunks: string[] = [];
  for await (const chunk of message) {
    if (chunks.length === 0) assert.ok(server.feeds[0]!.sent < server.feeds[0]!.total);
    chunks.push(chunk);
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
