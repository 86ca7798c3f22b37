import assert from "node:assert/strict";
import { Assistant } from "../../../components/core/component.ts";
import type { ChatParams } from "../../../components/core/params.ts";
import { waitFor } from "../../rely/_server.ts";
import { testApi } from "./_api.ts";

/** Holds before its first chunk until its signal aborts, and says why it was. */
class Holding extends Assistant {
  started = Promise.withResolvers<void>();
  stopped = Promise.withResolvers<unknown>();
  override async *answer(_prompt: string, _sources: unknown[], params: ChatParams) {
    this.started.resolve();
    await new Promise((resolve) => params.signal.addEventListener("abort", resolve));
    this.stopped.resolve(params.signal.reason);
    yield "too late";
  }
}

Deno.test("a streamed answer whose client leaves before the first chunk goes on until POST /chats/{id}/stop, which keeps the prompt with a stopped answer", async () => {
  const holding = new Holding();
  await using api = await testApi({ assistants: [holding] });
  const { document } = await api.upload("a.md", "# A\n");
  const chat = await (await api.call("POST", "/chats", {
    name: "held",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Holding",
    params: {},
    documents: [document],
  })).json();
  await api.call("POST", `/chats/${chat.id}/prepare`);
  const token = await (await api.app.request("http://svc.test/token", {
    method: "POST",
    body: new URLSearchParams({ username: "ada", password: "ada" }),
  })).json();

  const client = new AbortController();
  const answering = api.app.request(`http://svc.test/chats/${chat.id}/answer`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ prompt: "Still there?", stream: true }),
    signal: client.signal,
  });
  await holding.started.promise;
  client.abort();
  const stop = await api.call("POST", `/chats/${chat.id}/stop`);
  assert.deepEqual(await stop.json(), { stopped: 1 });
  // The stop route's reason, not a client that left: the answer ran on until then.
  assert.equal((await holding.stopped.promise as { status: number }).status, 409);
  await (await answering).body?.cancel();
  const stored = await (await api.call("GET", `/chats/${chat.id}`)).json();
  // The question is not left alone: an empty answer marked stopped follows it.
  assert.deepEqual(
    stored.messages.map((message: { role: string; content: string; status?: string }) => [
      message.role,
      message.content,
      message.status,
    ]),
    [
      ["system", "How can I help you with the documents?", undefined],
      ["user", "Still there?", undefined],
      ["assistant", "", "stopped"],
    ],
  );
});

/** Streams until it is told to stop, then fails as it ends. */
class FailsWhenStopped extends Assistant {
  override async *answer(_prompt: string, _sources: unknown[], params: ChatParams) {
    try {
      yield "Going ";
      await new Promise((resolve) => params.signal.addEventListener("abort", resolve));
      yield "on";
    } finally {
      // deno-lint-ignore no-unsafe-finally
      throw new Error("Cannot close the model's stream");
    }
  }
}

Deno.test("a streamed answer whose assistant fails as it is stopped is logged as one JSON line with its request id", async () => {
  await using api = await testApi({ assistants: [new FailsWhenStopped()] });
  const { document } = await api.upload("a.md", "# A\n");
  const chat = await (await api.call("POST", "/chats", {
    name: "left",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "FailsWhenStopped",
    params: {},
    documents: [document],
  })).json();
  await api.call("POST", `/chats/${chat.id}/prepare`);
  const token = await (await api.app.request("http://svc.test/token", {
    method: "POST",
    body: new URLSearchParams({ username: "ada", password: "ada" }),
  })).json();
  // Answered by the API whose log the test reads, stopped through whichever replica.
  const response = await api.app.request(`http://svc.test/chats/${chat.id}/answer`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ prompt: "Still there?", stream: true }),
  });
  const reader = response.body!.getReader();
  await reader.read();
  await api.call("POST", `/chats/${chat.id}/stop`);
  await reader.cancel().catch(() => {});
  const id = response.headers.get("x-request-id");
  const line = await waitFor(
    "the failure's log line",
    () =>
      api.logs.map((line) => JSON.parse(line)).find((line) =>
        line.request_id === id && /Cannot close the model's stream/.test(line.message)
      ),
  );
  assert.equal(line.level, "error");
});
