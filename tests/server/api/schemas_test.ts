import assert from "node:assert/strict";
import type { z } from "zod";
import { Assistant } from "../../../components/core/component.ts";
import * as schemas from "../../../server/api/schemas.ts";
import { testApi } from "./_api.ts";

/** Answers in three chunks, so that a stream has lines after its first. */
class ThreeChunks extends Assistant {
  override *answer() {
    yield "one ";
    yield "two ";
    yield "three";
  }
}

/** The value as the schema reads it: a key the schema does not define would be dropped. */
function read(schema: z.ZodType, value: unknown): unknown {
  const result = schema.safeParse(value);
  assert.ok(result.success, `${JSON.stringify(value)}: ${result.error?.message}`);
  return result.data;
}

Deno.test("the API answers in exactly the shapes its schemas define, key for key", async () => {
  await using api = await testApi({ assistants: [new ThreeChunks()] });
  const components = await (await api.call("GET", "/components")).json();
  assert.deepEqual(read(schemas.Components, components), components);
  const registered = await (await api.call("POST", "/document", { name: "a.md" })).json();
  assert.deepEqual(read(schemas.DocumentUpload, registered), registered);
  const { document } = await api.upload("b.md", "# B\nThe secret is salt.");
  assert.deepEqual(read(schemas.Document, document), document);

  const chat = await (await api.call("POST", "/chats", {
    name: "B",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "ThreeChunks",
    params: {},
    documents: [document],
  })).json();
  assert.deepEqual(read(schemas.Chat, chat), chat);
  const welcome = await (await api.call("POST", `/chats/${chat.id}/prepare`)).json();
  assert.deepEqual(read(schemas.Message, welcome), welcome);
  const answer = await (await api.call("POST", `/chats/${chat.id}/answer`, { prompt: "salt?" }))
    .json();
  assert.deepEqual(read(schemas.Message, answer), answer);
  assert.equal(answer.sources.length, 1);

  const stream = await api.call("POST", `/chats/${chat.id}/answer`, {
    prompt: "salt?",
    stream: true,
  });
  const lines = (await stream.text()).trim().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(lines.map((line) => line.sources?.length ?? null), [1, null, null]);
  for (const line of lines) assert.deepEqual(read(schemas.MessageLine, line), line);
  // Only the first line is a whole message: the later ones have no sources.
  assert.equal(schemas.Message.safeParse(lines[1]).success, false);

  const opened = await (await api.call("GET", `/chats/${chat.id}`)).json();
  assert.deepEqual(read(schemas.Chat, opened), opened);
  assert.equal(opened.messages.length, 5);
  const list = await (await api.call("GET", "/chats")).json();
  assert.deepEqual(read(schemas.Chat.array(), list), list);
  const summaries = await (await api.call("GET", "/chats?messages=false")).json();
  assert.deepEqual(read(schemas.ChatSummary.array(), summaries), summaries);
  assert.equal(summaries[0].num_messages, 5);
});
