import assert from "node:assert/strict";
import OpenAI from "npm:openai@7.57.0";
import { SvcDemoAssistant } from "../../../components/assistants/demo.ts";
import { SvcError } from "../../../components/core/errors.ts";
import type { ChatParams } from "../../../components/core/params.ts";
import type { Source } from "../../../components/core/source.ts";
import { sourceList } from "../../../server/api/openai.ts";
import { numbered } from "../../rely/_components.ts";
import { Client, startSvc } from "../../rely/_server.ts";
import { tmpDir } from "../../test_utils.ts";
import { testApi } from "./_api.ts";
import { integration } from "../../_tier.ts";

/** Answers in three chunks: the prompt, the conversation it was given, the number of sources. */
class ConversationAssistant extends SvcDemoAssistant {
  static override displayName = "Test/Conversation";
  override *answer(prompt: string, sources: Source[], params?: ChatParams) {
    const history = params?.history ?? [];
    yield `Q: ${prompt}.`;
    yield ` H: ${history.map((m) => `${m.role}=${m.content}`).join(", ")}.`;
    yield ` S: ${sources.length}`;
  }
}

async function preparedChat(api: Awaited<ReturnType<typeof testApi>>, name = "Handbook") {
  const { document } = await api.upload("handbook.md", "Holidays are 30 days a year.\n");
  const chat = await (await api.call("POST", "/chats", {
    name,
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Test/Conversation",
    params: {},
    documents: [document],
  })).json();
  await api.call("POST", `/chats/${chat.id}/prepare`);
  return chat;
}

/** The data of each server-sent event of a response. */
async function events(response: Response): Promise<string[]> {
  const text = await response.text();
  assert.ok(text.endsWith("\n\n"), text);
  return text.trimEnd().split("\n\n").map((event) => {
    assert.match(event, /^data: /);
    return event.slice("data: ".length);
  });
}

/** Asks "Holidays?" as a stream: the data of its events. */
async function askStreamed(api: Awaited<ReturnType<typeof testApi>>, model: string) {
  const response = await api.call("POST", "/v1/chat/completions", {
    model,
    messages: [{ role: "user", content: "Holidays?" }],
    stream: true,
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  return await events(response);
}

const CONVERSATION = [
  { role: "system", content: "Answer briefly" },
  { role: "user", content: "How many holidays?" },
  { role: "assistant", content: "30 days" },
  { role: "user", content: [{ type: "text", text: "And in a leap year" }] },
];

Deno.test("GET /v1/models lists the user's prepared chats, by id and name, and no other", async () => {
  await using api = await testApi({ assistants: [new ConversationAssistant()] });
  const chat = await preparedChat(api);
  await api.call("POST", "/chats", {
    name: "Not prepared",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Test/Conversation",
    params: {},
    documents: [],
  });
  const response = await api.call("GET", "/v1/models");
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), {
    object: "list",
    data: [{ id: chat.id, object: "model", created: 0, owned_by: "ada", name: "Handbook" }],
  });
  await api.as("grace");
  assert.deepEqual(await (await api.call("GET", "/v1/models")).json(), {
    object: "list",
    data: [],
  });
});

Deno.test("POST /v1/chat/completions answers whole over the chat's documents, its sources as a field and as a list; the chat keeps the last question and the answer", async () => {
  await using api = await testApi({ assistants: [new ConversationAssistant()] });
  const chat = await preparedChat(api);
  const response = await api.call("POST", "/v1/chat/completions", {
    model: chat.id,
    messages: CONVERSATION,
    temperature: 0.2,
  });
  assert.equal(response.status, 200);
  const completion = await response.json();
  const stored = await (await api.call("GET", `/chats/${chat.id}`)).json();
  const [welcome, question, answer, ...rest] = stored.messages;
  assert.equal(welcome.role, "system");
  assert.deepEqual([question.role, question.content], ["user", "And in a leap year"]);
  assert.equal(answer.role, "assistant");
  assert.deepEqual(rest, []);
  assert.equal(answer.sources.length, 1);
  assert.deepEqual(completion.sources, answer.sources);
  assert.equal(completion.object, "chat.completion");
  assert.equal(completion.id, `chatcmpl-${answer.id}`);
  assert.equal(completion.model, chat.id);
  assert.equal(completion.created, Math.floor(Date.parse(answer.timestamp) / 1000));
  assert.equal(completion.choices.length, 1);
  assert.equal(completion.choices[0].finish_reason, "stop");
  assert.equal(completion.choices[0].message.role, "assistant");
  assert.equal(
    completion.choices[0].message.content,
    `${answer.content}\n\nSources:\n1. handbook.md`,
  );
  // The assistant was given the client's conversation, not the chat's own history (its welcome).
  assert.equal(
    answer.content,
    "Q: And in a leap year. H: system=Answer briefly, user=How many holidays?, assistant=30 days. S: 1",
  );
});

Deno.test("POST /v1/chat/completions streams chat.completion.chunk events, sources on the first, the list and finish_reason at the end, then [DONE]", async () => {
  await using api = await testApi({ assistants: [new ConversationAssistant()] });
  const chat = await preparedChat(api);
  const data = await askStreamed(api, chat.id);
  assert.equal(data.at(-1), "[DONE]");
  const chunks = data.slice(0, -1).map((text) => JSON.parse(text));
  const stored = (await (await api.call("GET", `/chats/${chat.id}`)).json()).messages;
  const answer = stored.at(-1);
  assert.deepEqual(stored.slice(1).map((m: { role: string }) => m.role), ["user", "assistant"]);
  for (const chunk of chunks) {
    assert.equal(chunk.object, "chat.completion.chunk");
    assert.equal(chunk.id, `chatcmpl-${answer.id}`);
    assert.equal(chunk.model, chat.id);
  }
  assert.equal(chunks[0].choices[0].delta.role, "assistant");
  assert.deepEqual(chunks[0].sources, answer.sources);
  assert.ok(chunks.slice(1).every((chunk) => !("sources" in chunk)));
  assert.ok(chunks.length >= 4, "the assistant's chunks, the list and the end");
  const last = chunks.at(-1);
  assert.deepEqual(last.choices[0], { index: 0, delta: {}, finish_reason: "stop", logprobs: null });
  assert.ok(chunks.slice(0, -1).every((chunk) => chunk.choices[0].finish_reason === null));
  const text = chunks.map((chunk) => chunk.choices[0].delta.content ?? "").join("");
  assert.equal(text, `${answer.content}\n\nSources:\n1. handbook.md`);
});

Deno.test("POST /v1/chat/completions ends a stream that fails after its first chunk with an error event and no [DONE], and keeps the answer marked failed", async () => {
  class Failing extends SvcDemoAssistant {
    static override displayName = "Test/Conversation";
    override *answer() {
      yield "Half";
      throw new SvcError("The provider failed", { status: 502 });
    }
  }
  await using api = await testApi({ assistants: [new Failing()] });
  const chat = await preparedChat(api);
  const data = (await askStreamed(api, chat.id)).map((text) => JSON.parse(text));
  assert.equal(data.length, 2);
  assert.equal(data[0].choices[0].delta.content, "Half");
  assert.deepEqual(data[1], {
    error: { message: "The provider failed", type: "server_error", param: null, code: null },
  });
  const stored = (await (await api.call("GET", `/chats/${chat.id}`)).json()).messages;
  assert.deepEqual(
    stored.slice(1).map((m: { role: string; content: string; status?: string }) => [
      m.role,
      m.content,
      m.status,
    ]),
    [["user", "Holidays?", undefined], ["assistant", "Half", "failed"]],
  );
});

Deno.test("POST /v1/chat/completions refuses in OpenAI's error shape, with OpenAI's statuses", async () => {
  await using api = await testApi({ assistants: [new ConversationAssistant()] });
  const chat = await preparedChat(api);
  const unprepared = await (await api.call("POST", "/chats", {
    name: "Later",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Test/Conversation",
    params: {},
    documents: [],
  })).json();
  const ask = (body: unknown) => api.call("POST", "/v1/chat/completions", body);
  const cases: [string, Response | Promise<Response>, number, string, string | null][] = [
    [
      "no bearer",
      api.app.request("http://svc.test/v1/models"),
      401,
      "invalid_request_error",
      "invalid_api_key",
    ],
    [
      "an unknown model",
      ask({ model: "nope", messages: [{ role: "user", content: "?" }] }),
      404,
      "invalid_request_error",
      "model_not_found",
    ],
    [
      "no messages",
      ask({ model: chat.id, messages: [] }),
      400,
      "invalid_request_error",
      null,
    ],
    [
      "an assistant's message last",
      ask({ model: chat.id, messages: [{ role: "assistant", content: "?" }] }),
      400,
      "invalid_request_error",
      null,
    ],
    [
      "a chat not prepared",
      ask({ model: unprepared.id, messages: [{ role: "user", content: "?" }] }),
      400,
      "invalid_request_error",
      null,
    ],
    ["GET", api.call("GET", "/v1/chat/completions"), 405, "invalid_request_error", null],
    ["no route", api.call("GET", "/v1/embeddings"), 404, "invalid_request_error", null],
  ];
  for (const [what, request, status, type, code] of cases) {
    const response = await request;
    assert.equal(response.status, status, what);
    const { error } = await response.json();
    assert.deepEqual(Object.keys(error).sort(), ["code", "message", "param", "type"], what);
    assert.ok(error.message.length > 0, what);
    assert.deepEqual([error.type, error.code], [type, code], what);
  }
  // Nothing of the refused questions was kept.
  const stored = await (await api.call("GET", `/chats/${chat.id}`)).json();
  assert.equal(stored.messages.length, 1);
  await api.as("grace");
  const other = await ask({ model: chat.id, messages: [{ role: "user", content: "?" }] });
  assert.equal(other.status, 404);
  assert.equal((await other.json()).error.code, "model_not_found");
});

Deno.test("POST /v1/chat/completions takes an API key as its bearer", async () => {
  await using api = await testApi({ assistants: [new ConversationAssistant()] });
  const chat = await preparedChat(api);
  const { key } = await (await api.call("POST", "/api-keys", { name: "editor" })).json();
  assert.match(key, /^svc_/);
  const response = await api.app.request("http://svc.test/v1/chat/completions", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: chat.id, messages: [{ role: "user", content: "Hi" }] }),
  });
  assert.equal(response.status, 200);
  assert.match((await response.json()).choices[0].message.content, /^Q: Hi\./);
});

Deno.test("sourceList() numbers each document once, with its pages in order", () => {
  const source = (id: string, name: string, location: string) => ({
    id: `${id}${location}`,
    document: { id, name },
    location,
    content: "",
    num_tokens: 0,
  });
  assert.equal(sourceList([]), "");
  assert.equal(
    sourceList([
      source("a", "report.pdf", "3"),
      source("b", "notes.md", ""),
      source("a", "report.pdf", "1-2"),
      source("a", "report.pdf", "3"),
      source("c", "slides.pptx", "4"),
      source("d", "manual.pdf", "page 9"),
      source("d", "manual.pdf", "7"),
      source("e", "guide.md", "§ Options"),
      source("e", "guide.md", "§ Options"),
    ]),
    "\n\nSources:\n1. report.pdf, pages 1-3\n2. notes.md\n3. slides.pptx, slide 4\n" +
      "4. manual.pdf, pages 7, 9\n5. guide.md, § Options",
  );
});

integration.test("the openai SDK talks to a running svc api: models, a whole answer in a conversation, a streamed one", async () => {
  await using dir = await tmpDir();
  await using svc = await startSvc(dir.path);
  const client = await Client.login(svc.base);
  const document = await client.upload("handbook.md", "Holidays are 30 days a year.\n");
  const chat = await client.createChat("Handbook", [document], { chunks: 5, delay_ms: 0 });
  await client.call("POST", `/chats/${chat.id}/prepare`);
  const { key } = await client.call("POST", "/api-keys", { name: "sdk" });
  const openai = new OpenAI({ apiKey: key, baseURL: `${svc.base}/v1`, maxRetries: 0 });

  const models = [];
  for await (const model of openai.models.list()) models.push(model);
  assert.deepEqual(models.map((m) => [m.id, (m as unknown as { name: string }).name]), [
    [chat.id, "Handbook"],
  ]);

  const whole = await openai.chat.completions.create({
    model: chat.id,
    messages: [
      { role: "system", content: "Answer briefly" },
      { role: "user", content: "How many holidays?" },
      { role: "assistant", content: "30 days" },
      { role: "user", content: "And in a leap year?" },
    ],
  });
  const list = "\n\nSources:\n1. handbook.md";
  assert.equal(whole.choices[0]!.message.content, `${numbered(5)}${list}`);
  assert.equal(
    (whole as unknown as { sources: { document: { name: string } }[] }).sources[0]!.document.name,
    "handbook.md",
  );

  const stream = await openai.chat.completions.create({
    model: chat.id,
    messages: [{ role: "user", content: "And in 2027?" }],
    stream: true,
  });
  const deltas: string[] = [];
  const finishes: (string | null)[] = [];
  for await (const chunk of stream) {
    deltas.push(chunk.choices[0]!.delta.content ?? "");
    finishes.push(chunk.choices[0]!.finish_reason);
  }
  assert.equal(deltas.join(""), `${numbered(5)}${list}`);
  assert.ok(deltas.length >= 7, "a chunk per number, the list, the end");
  assert.equal(finishes.at(-1), "stop");

  await assert.rejects(
    openai.chat.completions.create({ model: "nope", messages: [{ role: "user", content: "?" }] }),
    (error: unknown) => {
      assert.ok(error instanceof OpenAI.NotFoundError);
      assert.equal(error.code, "model_not_found");
      return true;
    },
  );
  const unauthorised = new OpenAI({ apiKey: "svc_nope", baseURL: `${svc.base}/v1`, maxRetries: 0 });
  await assert.rejects(unauthorised.models.list(), OpenAI.AuthenticationError);

  const stored = await client.call("GET", `/chats/${chat.id}`);
  assert.deepEqual(
    stored.messages.map((m: { role: string; content: string }) => [m.role, m.content]).slice(1),
    [
      ["user", "And in a leap year?"],
      ["assistant", numbered(5)],
      ["user", "And in 2027?"],
      ["assistant", numbered(5)],
    ],
  );
});
