import assert from "node:assert/strict";
import { Assistant } from "../../../components/core/component.ts";
import type { ChatParams } from "../../../components/core/params.ts";
import type { Source } from "../../../components/core/source.ts";
import { testApi } from "./_api.ts";

/** The words of a whole answer. */
const WORDS = 50;

/**
 * Yields three words, waits until the test lets it go on (or its signal
 * aborts), then yields the rest, recording whether it was told to stop.
 */
class Slow extends Assistant {
  yielded = 0;
  closed = Promise.withResolvers<boolean>();
  goOn = Promise.withResolvers<void>();
  override async *answer(_prompt: string, _sources: Source[], params: ChatParams) {
    try {
      for (let i = 0; i < WORDS; i++) {
        if (i === 3) await Promise.race([this.goOn.promise, aborted(params.signal)]);
        this.yielded++;
        yield `word${i} `;
      }
    } finally {
      this.closed.resolve(params.signal.aborted);
    }
  }
}

/** Settles once `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true })
  );
}

Deno.test("a streamed answer reaches the client chunk by chunk, and runs to its end on the server when the client leaves after the first lines", async () => {
  const slow = new Slow();
  await using api = await testApi({ assistants: [slow] });
  const { document } = await api.upload("a.md", "# A\n");
  const chat = await (await api.call("POST", "/chats", {
    name: "slow",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Slow",
    params: {},
    documents: [document],
  })).json();
  await api.call("POST", `/chats/${chat.id}/prepare`);

  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, api.app.fetch);
  const client = new AbortController();
  const response = await fetch(
    `http://127.0.0.1:${server.addr.port}/chats/${chat.id}/answer`,
    {
      method: "POST",
      headers: {
        authorization: await bearer(api),
        "content-type": "application/json",
      },
      body: JSON.stringify({ prompt: "go", stream: true }),
      signal: client.signal,
    },
  );
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let received = "";
  while (received.split("\n").length < 4) received += (await reader.read()).value;
  const lines = received.split("\n").slice(0, 3).map((line) => JSON.parse(line));
  assert.deepEqual(lines.map((line) => line.content), ["word0 ", "word1 ", "word2 "]);
  assert.ok(slow.yielded < WORDS, "the lines came before the answer was finished");

  client.abort();
  await reader.cancel().catch(() => {});
  // Held until the client had left: what it yields now, nobody reads.
  slow.goOn.resolve();
  assert.equal(await slow.closed.promise, false, "the assistant was never told to stop");
  assert.equal(slow.yielded, WORDS);

  // Stored whole once it ended, as if the client had stayed.
  const whole = Array.from({ length: WORDS }, (_, i) => `word${i} `).join("");
  const stored = await waitFor(async () => {
    const record = await (await api.call("GET", `/chats/${chat.id}`)).json();
    return record.messages[2]?.status === undefined && record.messages[2]?.content === whole
      ? record
      : undefined;
  });
  const [welcome, question, answer] = stored.messages;
  assert.equal(welcome.role, "system");
  assert.deepEqual([question.role, question.content], ["user", "go"]);
  assert.deepEqual([answer.role, answer.id], ["assistant", lines[0].id]);
});

async function bearer(api: Awaited<ReturnType<typeof testApi>>): Promise<string> {
  const response = await api.app.request("http://svc.test/token", {
    method: "POST",
    body: new URLSearchParams({ username: "ada", password: "ada" }),
  });
  return `Bearer ${await response.json()}`;
}

/** Polls `probe` until it gives a value; the deadline only guards against a hang. */
async function waitFor<T>(probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("gave up waiting");
}
