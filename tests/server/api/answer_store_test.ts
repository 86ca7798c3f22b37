/**
 * A complete answer whose store fails, on a real full disk (see tests/_disk.ts):
 * its client hears why, on every protocol, rather than reading it whole as if
 * it were kept. Apart from answer_stream_test.ts, which runs again on a
 * replica set: this API's database is a libSQL file on the small disk.
 * @module
 */
import assert from "node:assert/strict";
import { Assistant } from "../../../components/core/component.ts";
import { type SmallDisk, smallDisk } from "../../_disk.ts";
import type { TestApi } from "./_api.ts";
import { apiOnSmallDisk } from "./_disk_api.ts";

/** Fills the disk of the database after its first chunk: its answer cannot be stored. */
class FillsTheDisk extends Assistant {
  static override displayName = "Test/FillsTheDisk";
  readonly #disk: SmallDisk;
  constructor(disk: SmallDisk) {
    super();
    this.#disk = disk;
  }
  override async *answer(): AsyncGenerator<string> {
    yield "It ";
    await this.#disk.fill();
    yield "depends.";
  }
}

/** The test API with its chats on `disk`, and a prepared chat of the assistant. */
async function onSmallDisk(disk: SmallDisk): Promise<{ api: TestApi; chatId: string }> {
  const api = await apiOnSmallDisk(disk, { assistants: [new FillsTheDisk(disk)] });
  const { document } = await api.upload("a.md", "# A\n");
  const chat = await (await api.call("POST", "/chats", {
    name: "full",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Test/FillsTheDisk",
    params: {},
    documents: [document],
  })).json();
  await api.call("POST", `/chats/${chat.id}/prepare`);
  return { api, chatId: chat.id };
}

/** The log line of the request that says why its answer was not kept: one JSON object. */
function refusalLogged(api: TestApi, response: Response): Record<string, unknown> {
  const lines = api.logs.map((line) => JSON.parse(line));
  const id = response.headers.get("x-request-id");
  const line = lines.find((line) => line.request_id === id && /disk is full/.test(line.message));
  assert.ok(line, `a log line of request ${id}: ${api.logs.join("\n")}`);
  assert.equal(line.level, "error");
  return line;
}

Deno.test("an answer whose store fails ends its stream with an error line, on REST, /v1 and MCP, logged as JSON with the request id, and is never kept complete", async () => {
  await using disk = await smallDisk(4 * 1024 * 1024);
  const { api, chatId } = await onSmallDisk(disk);
  await using _api = api;
  const refusal = "Cannot write to the database: the disk is full";

  // REST: every chunk, then the error line in place of the end.
  const rest = await api.call("POST", `/chats/${chatId}/answer`, { prompt: "REST?", stream: true });
  const lines = (await rest.text()).trimEnd().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(lines.map((line) => line.content ?? line.error.message), [
    "It ",
    "depends.",
    refusal,
  ]);
  refusalLogged(api, rest);
  await disk.free();

  // /v1: the error event in place of finish_reason and [DONE].
  const v1 = await api.call("POST", "/v1/chat/completions", {
    model: chatId,
    stream: true,
    messages: [{ role: "user", content: "OpenAI?" }],
  });
  const events = (await v1.text()).split("\n\n").filter(Boolean);
  assert.equal(events.includes("data: [DONE]"), false);
  const last = JSON.parse(events.at(-1)!.replace(/^data: /, ""));
  assert.equal(last.error.message, refusal);
  assert.equal(
    events.some((event) => event.includes('"finish_reason":"stop"')),
    false,
    "never said to have ended",
  );
  refusalLogged(api, v1);
  await disk.free();

  // MCP: the tool's error says why.
  const mcp = await api.call("POST", "/mcp", {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "ask", arguments: { question: "MCP?", chat_id: chatId } },
  }, { accept: "application/json, text/event-stream" });
  const reply = await mcp.json();
  assert.equal(reply.result?.isError, true, JSON.stringify(reply));
  assert.equal(reply.result.content[0].text, refusal);
  refusalLogged(api, mcp);
  await disk.free();

  // Each question is kept; no answer is kept as complete.
  const stored = await (await api.call("GET", `/chats/${chatId}`)).json();
  const complete = stored.messages.filter((m: { role: string; status?: string }) =>
    m.role === "assistant" && m.status === undefined
  );
  assert.deepEqual(complete, []);
  assert.deepEqual(
    stored.messages.filter((m: { role: string }) => m.role === "user").map((
      m: { content: string },
    ) => m.content),
    ["REST?", "OpenAI?", "MCP?"],
  );
});
