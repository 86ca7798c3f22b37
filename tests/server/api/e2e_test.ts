import assert from "node:assert/strict";
import { z } from "zod";
import { SvcDemoAssistant } from "../../../components/assistants/demo.ts";
import type { Source } from "../../../components/core/source.ts";
import type { ChatParams } from "../../../components/core/params.ts";
import { testApi } from "./_api.ts";

/** The demo assistant, answering in one chunk or a chunk per word. */
class TestAssistant extends SvcDemoAssistant {
  static override displayName = "TestAssistant";
  static override params = { multiple_answer_chunks: z.boolean() };
  override *answer(prompt: string, sources: Source[], params: ChatParams) {
    const [text] = super.answer(prompt, sources);
    if (params.multiple_answer_chunks) {
      for (const word of text!.split(" ")) yield `${word} `;
    } else {
      yield text!;
    }
  }
}

async function readLines(response: Response) {
  return (await response.text()).trimEnd().split("\n").map((line) => JSON.parse(line));
}

for (const multiple of [true, false]) {
  for (const stream of [true, false]) {
    Deno.test(`the REST API runs a whole chat (multiple chunks: ${multiple}, streamed: ${stream})`, async () => {
      await using api = await testApi({ assistants: [new TestAssistant()] });
      assert.deepEqual(await (await api.call("GET", "/chats")).json(), []);

      const { document } = await api.upload("test.txt", "!\n");
      assert.equal(document.name, "test.txt");

      const components = await (await api.call("GET", "/components")).json();
      assert.deepEqual(components.documents, [".docx", ".md", ".pdf", ".pptx", ".txt"]);
      assert.deepEqual(components.source_storages.map((s: { title: string }) => s.title), [
        "Svc/DemoSourceStorage",
      ]);
      assert.deepEqual(components.assistants.map((s: { title: string }) => s.title), [
        "TestAssistant",
      ]);

      const metadata = {
        name: "test-chat",
        source_storage: "Svc/DemoSourceStorage",
        assistant: "TestAssistant",
        params: { multiple_answer_chunks: multiple },
        documents: [document],
      };
      const created = await api.call("POST", "/chats", metadata);
      assert.equal(created.status, 200);
      const chat = await created.json();
      assert.deepEqual(chat.metadata, metadata);
      assert.equal(chat.prepared, false);
      assert.deepEqual(chat.messages, []);
      assert.deepEqual(await (await api.call("GET", "/chats")).json(), [chat]);
      assert.deepEqual(await (await api.call("GET", `/chats/${chat.id}`)).json(), chat);

      const welcome = await (await api.call("POST", `/chats/${chat.id}/prepare`)).json();
      assert.equal(welcome.role, "system");
      assert.deepEqual(welcome.sources, []);
      const prepared = await (await api.call("GET", `/chats/${chat.id}`)).json();
      assert.equal(prepared.prepared, true);
      assert.deepEqual(prepared.messages, [welcome]);

      const response = await api.call("POST", `/chats/${chat.id}/answer`, { prompt: "?", stream });
      let answer;
      if (stream) {
        assert.equal(response.headers.get("content-type"), "application/x-ndjson");
        const lines = await readLines(response);
        assert.equal(lines.length > 1, multiple);
        for (const line of lines.slice(1)) {
          assert.equal(line.sources, null);
          assert.equal(line.id, lines[0].id);
          assert.equal(line.timestamp, lines[0].timestamp);
        }
        answer = { ...lines[0], content: lines.map((line) => line.content).join("") };
      } else {
        answer = await response.json();
      }
      assert.equal(answer.role, "assistant");
      assert.deepEqual(
        new Set(answer.sources.map((s: { document: { name: string } }) => s.document.name)),
        new Set(["test.txt"]),
      );
      assert.match(answer.content, /> \?/);
      const source = answer.sources[0];
      assert.deepEqual(Object.keys(source).sort(), [
        "content",
        "document",
        "id",
        "location",
        "num_tokens",
      ]);
      assert.equal(source.content, "!");

      const answered = await (await api.call("GET", `/chats/${chat.id}`)).json();
      assert.equal(answered.messages.length, 3);
      const [, question, stored] = answered.messages;
      assert.equal(question.role, "user");
      assert.deepEqual(question.sources, []);
      assert.equal(question.content, "?");
      assert.deepEqual(stored, answer);

      assert.equal(await (await api.call("DELETE", `/chats/${chat.id}`)).json(), null);
      assert.deepEqual(await (await api.call("GET", "/chats")).json(), []);
    });
  }
}
