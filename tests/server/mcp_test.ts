/**
 * The MCP server's tool ask, through `POST /mcp`, keeps a question with its
 * answer as the REST API does: a failed answer is kept marked failed, never a
 * question alone.
 * @module
 */
import assert from "node:assert/strict";
import { Assistant } from "../../components/core/component.ts";
import { SvcError } from "../../components/core/errors.ts";
import { testApi } from "./api/_api.ts";

class Failing extends Assistant {
  static override displayName = "Test/Failing";
  // deno-lint-ignore require-yield
  override async *answer(): AsyncGenerator<string> {
    await Promise.resolve();
    throw new SvcError("The provider answered 500: overloaded", { status: 502 });
  }
}

Deno.test("POST /mcp: a question whose answer fails is kept with an answer marked failed", async () => {
  await using api = await testApi({ assistants: [new Failing()] });
  const { document } = await api.upload("a.md", "# A\n");
  const chat = await (await api.call("POST", "/chats", {
    name: "mcp",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Test/Failing",
    params: {},
    documents: [document],
  })).json();
  await api.call("POST", `/chats/${chat.id}/prepare`);
  const response = await api.call("POST", "/mcp", {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "ask", arguments: { question: "Anything?", chat_id: chat.id } },
  }, { accept: "application/json, text/event-stream" });
  const reply = await response.json();
  assert.equal(reply.result?.isError, true, JSON.stringify(reply));
  assert.match(reply.result.content[0].text, /overloaded/);
  const stored = await (await api.call("GET", `/chats/${chat.id}`)).json();
  assert.deepEqual(
    stored.messages.map((m: { role: string; content: string; status?: string }) => [
      m.role,
      m.content,
      m.status,
    ]),
    [
      ["system", "How can I help you with the documents?", undefined],
      ["user", "Anything?", undefined],
      ["assistant", "", "failed"],
    ],
  );
});
