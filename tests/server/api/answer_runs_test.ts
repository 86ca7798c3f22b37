import assert from "node:assert/strict";
import { waitFor } from "../../rely/_server.ts";
import { type TestApi, testApi, type TestApiOptions } from "./_api.ts";
import { Fed } from "./_fed.ts";

type Json = Record<string, unknown>;

/** A test API whose assistant the test feeds, and a prepared chat of it. */
async function fedChat(options: TestApiOptions = {}) {
  const fed = new Fed();
  const api = await testApi({ ...options, assistants: [fed] });
  const { document } = await api.upload("a.md", "# Apples\n\nApples are red.\n");
  const chat = await (await api.call("POST", "/chats", {
    name: "fed",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Test/Fed",
    params: {},
    documents: [document],
  })).json();
  await api.call("POST", `/chats/${chat.id}/prepare`);
  return { api, fed, chatId: chat.id as string };
}

/** Reads JSON Lines as they come. */
function lineReader(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  return {
    /** The next line, or `undefined` at the end. */
    async next(): Promise<Json | undefined> {
      while (!buffered.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffered += value;
      }
      const end = buffered.indexOf("\n");
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      return JSON.parse(line);
    },
    /** Every line left. */
    async rest(): Promise<Json[]> {
      const lines: Json[] = [];
      for (let line = await this.next(); line; line = await this.next()) lines.push(line);
      return lines;
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}

/** The chat's last message as GET /chats/{id} lists it. */
async function lastMessage(api: TestApi, chatId: string): Promise<Json> {
  return (await (await api.call("GET", `/chats/${chatId}`)).json()).messages.at(-1);
}

Deno.test("POST /chats/{id}/stop stops the chat's running answers: a stream ends with a stopped line, a whole answer is refused with 409, both stored as far as written", async () => {
  const { api, fed, chatId } = await fedChat();
  await using _api = api;
  const feed = fed.feed("Streamed?");
  feed.push("Half ");
  const streamed = lineReader(
    await api.call("POST", `/chats/${chatId}/answer`, { prompt: "Streamed?", stream: true }),
  );
  const head = await streamed.next();
  assert.equal(head!.content, "Half ");
  const whole = api.call("POST", `/chats/${chatId}/answer`, { prompt: "Whole?" });
  await fed.feed("Whole?").began.promise;

  const stop = await api.call("POST", `/chats/${chatId}/stop`);
  assert.deepEqual(await stop.json(), { stopped: 2 });
  assert.equal((await feed.stopped.promise as { status: number }).status, 409);
  assert.deepEqual(await streamed.rest(), [
    { ...head, content: "", sources: null, status: "stopped" },
  ]);
  const refused = await whole;
  assert.equal(refused.status, 409);
  assert.equal(
    (await refused.json()).error.message,
    "The answer was stopped before it was complete",
  );

  const { messages } = await (await api.call("GET", `/chats/${chatId}`)).json();
  const answers = messages.filter((message: Json) => message.role === "assistant");
  assert.deepEqual(answers.map((m: Json) => [m.content, m.status, m.error]), [
    ["Half ", "stopped", undefined],
    ["", "stopped", undefined],
  ]);
  assert.deepEqual(await (await api.call("POST", `/chats/${chatId}/stop`)).json(), { stopped: 0 });
  await api.as("bob");
  assert.equal((await api.call("POST", `/chats/${chatId}/stop`)).status, 404);
});

Deno.test("an answer runs on with no client, GET /chats/{id} shows its text so far as streaming, and another client follows it to its end", async () => {
  const { api, fed, chatId } = await fedChat({ answerSaveInterval: 10 });
  await using _api = api;
  const feed = fed.feed("Go?");
  feed.push("One ");
  const asked = lineReader(
    await api.call("POST", `/chats/${chatId}/answer`, { prompt: "Go?", stream: true }),
  );
  const head = await asked.next();
  await asked.cancel();
  feed.push("two ");
  const saved = await waitFor("the text so far, saved", async () => {
    const message = await lastMessage(api, chatId);
    return message.content === "One two " ? message : undefined;
  });
  assert.equal(saved.status, "streaming");
  assert.equal(saved.id, head!.id);
  const listed = await (await api.call("GET", "/chats?messages=false")).json();
  assert.equal(listed[0].num_messages, 3);
  const [whole] = await (await api.call("GET", "/chats")).json();
  assert.deepEqual(whole.messages.at(-1), saved, "the list shows it as GET /chats/{id} does");

  const follower = lineReader(
    await api.call("GET", `/chats/${chatId}/messages/${head!.id}/stream`),
  );
  const first = await follower.next();
  assert.deepEqual(first, { ...head, content: "One two " }, "the text so far, all sources");
  feed.push("three");
  feed.end();
  const rest = await follower.rest();
  assert.deepEqual(rest.map((line) => [line.content, line.sources]), [["three", null]]);

  const stored = await lastMessage(api, chatId);
  assert.deepEqual(stored, { ...head, content: "One two three" });
  const late = await (await api.call("GET", `/chats/${chatId}/messages/${head!.id}/stream`))
    .text();
  assert.deepEqual(late, `${JSON.stringify(stored)}\n`, "an ended answer is its stored record");
  assert.deepEqual(
    await (await api.call("GET", `/chats/${chatId}/messages/${head!.id}`)).json(),
    stored,
  );
  await api.as("bob");
  assert.equal((await api.call("GET", `/chats/${chatId}/messages/${head!.id}/stream`)).status, 404);
});

Deno.test("running answers are saved only when their text grew, at most once per save interval", async () => {
  {
    // A save interval longer than the answer: stored when it starts and when it ends, no more.
    const { api, fed, chatId } = await fedChat({ answerSaveInterval: 60_000 });
    await using _api = api;
    const feed = fed.feed("Many?");
    for (let i = 0; i < 500; i++) feed.push(`${i} `);
    feed.end();
    const answer = await (await api.call("POST", `/chats/${chatId}/answer`, { prompt: "Many?" }))
      .json();
    assert.equal(answer.content.split(" ").length, 501);
    assert.equal(api.deps.answers!.saves, 0);
  }
  {
    // Held without new text, a running answer costs reads of the stops asked, not writes.
    const { api, fed, chatId } = await fedChat({ answerSaveInterval: 5 });
    await using _api = api;
    const feed = fed.feed("Held?");
    feed.push("Held");
    const asked = lineReader(
      await api.call("POST", `/chats/${chatId}/answer`, { prompt: "Held?", stream: true }),
    );
    await asked.next();
    const runs = api.deps.answers!;
    await waitFor("the text so far, saved", () => runs.saves > 0 ? true : undefined);
    const [saves, ticks] = [runs.saves, runs.ticks];
    await waitFor("ten more ticks", () => runs.ticks >= ticks + 10 ? true : undefined);
    assert.equal(runs.saves, saves, `no write in ${runs.ticks - ticks} ticks`);
    feed.end();
    assert.deepEqual(await asked.rest(), []);
  }
});

Deno.test("an answer past its time limit is stopped, its stream ends with an error line, and it is stored as failed with the reason", async () => {
  const { api, fed, chatId } = await fedChat({ answerTimeout: 200 });
  await using _api = api;
  const feed = fed.feed("Slow?");
  feed.push("Some ");
  const response = await api.call("POST", `/chats/${chatId}/answer`, {
    prompt: "Slow?",
    stream: true,
  });
  const lines = await lineReader(response).rest();
  const reason = "The answer took longer than 0.2 s, the longest an answer may run " +
    "(SVC_API_ANSWER_TIMEOUT)";
  assert.deepEqual(lines.map((line) => line.content ?? line.error), [
    "Some ",
    { message: reason },
  ]);
  assert.equal((await feed.stopped.promise as { status: number }).status, 504);
  const stored = await lastMessage(api, chatId);
  assert.deepEqual([stored.content, stored.status, stored.error], ["Some ", "failed", reason]);
});

Deno.test("DELETE /chats/{id} stops the chat's running answer before the chat goes", async () => {
  const { api, fed, chatId } = await fedChat();
  await using _api = api;
  const feed = fed.feed("Going?");
  feed.push("Going ");
  const asked = lineReader(
    await api.call("POST", `/chats/${chatId}/answer`, { prompt: "Going?", stream: true }),
  );
  await asked.next();
  assert.equal((await api.call("DELETE", `/chats/${chatId}`)).status, 200);
  assert.equal((await feed.stopped.promise as { status: number }).status, 409);
  assert.equal(api.deps.answers!.size, 0);
  assert.equal((await api.call("GET", `/chats/${chatId}`)).status, 404);
});
