/**
 * Answers on a replica set: a stop or a follower that reaches another replica
 * than the one writing the answer works through the shared database.
 * PostgreSQL is required in CI (see tests/_postgres.ts), and left out of the
 * unit tier (see tests/_tier.ts).
 * @module
 */
import assert from "node:assert/strict";
import { findPostgres, postgresRequired } from "../../_postgres.ts";
import { integration, unitTier } from "../../_tier.ts";
import { type TestApi, testApi, useReplicaSet } from "./_api.ts";
import { Fed } from "./_fed.ts";

const withPostgres = !unitTier() && (findPostgres() !== undefined || postgresRequired());
if (withPostgres) useReplicaSet(2);

/** Two replicas whose assistant the test feeds, and a prepared chat of it. */
async function replicas() {
  const fed = new Fed();
  const api = await testApi({ assistants: [fed], answerSaveInterval: 20 });
  const [writer, other] = api.replicas!;
  const { document } = await api.upload("a.md", "# Apples\n\nApples are red.\n");
  const chat = await (await writer!.call("POST", "/chats", {
    name: "replicas",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Test/Fed",
    params: {},
    documents: [document],
  })).json();
  await writer!.call("POST", `/chats/${chat.id}/prepare`);
  return { api, fed, writer: writer!, other: other!, chatId: chat.id as string };
}

/** The lines of a JSON Lines response, read to its end. */
async function lines(response: Response): Promise<Record<string, unknown>[]> {
  return (await response.text()).split("\n").filter(Boolean).map((line) => JSON.parse(line));
}

/** The first line of a JSON Lines stream, and a reader of the rest. */
async function firstLine(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) text += (await reader.read()).value;
  const end = text.indexOf("\n");
  return {
    line: JSON.parse(text.slice(0, end)),
    async rest(): Promise<Record<string, unknown>[]> {
      let rest = text.slice(end + 1);
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        rest += next.value;
      }
      return rest.split("\n").filter(Boolean).map((line) => JSON.parse(line));
    },
  };
}

async function lastMessage(api: TestApi, chatId: string) {
  return (await (await api.call("GET", `/chats/${chatId}`)).json()).messages.at(-1);
}

integration.test({
  name: "POST /chats/{id}/stop sent to another replica stops the answer the first one writes",
  ignore: !withPostgres,
  async fn() {
    const { api, fed, writer, other, chatId } = await replicas();
    await using _api = api;
    const feed = fed.feed("Stop me?");
    feed.push("So far ");
    const asked = await firstLine(
      await writer.call("POST", `/chats/${chatId}/answer`, { prompt: "Stop me?", stream: true }),
    );
    assert.equal(asked.line.content, "So far ");

    const stop = await other.call("POST", `/chats/${chatId}/stop`);
    assert.deepEqual(await stop.json(), { stopped: 1 });
    assert.equal((await feed.stopped.promise as { status: number }).status, 409);
    assert.deepEqual(await asked.rest(), [
      { ...asked.line, content: "", sources: null, status: "stopped" },
    ]);
    const stored = await lastMessage(other, chatId);
    assert.deepEqual([stored.content, stored.status], ["So far ", "stopped"]);
  },
});

integration.test({
  name: "an answer written on one replica is followed from another through the database",
  ignore: !withPostgres,
  async fn() {
    const { api, fed, writer, other, chatId } = await replicas();
    await using _api = api;
    const feed = fed.feed("Follow me?");
    feed.push("One ");
    const asked = await firstLine(
      await writer.call("POST", `/chats/${chatId}/answer`, { prompt: "Follow me?", stream: true }),
    );
    const id = asked.line.id;
    feed.push("two ");
    const follower = await firstLine(
      await other.call("GET", `/chats/${chatId}/messages/${id}/stream`),
    );
    // What the writer saved by then, which may be nothing yet.
    assert.match(follower.line.content, /^(One (two )?)?$/);
    assert.deepEqual(follower.line.sources, asked.line.sources);
    feed.push("three");
    feed.end();
    const rest = await follower.rest();
    const followed = follower.line.content + rest.map((line) => line.content).join("");
    assert.equal(followed, "One two three");
    assert.ok(rest.every((line) => line.sources === null));
    await asked.rest();
    assert.equal((await lastMessage(other, chatId)).content, "One two three");
    assert.deepEqual(
      await lines(await other.call("GET", `/chats/${chatId}/messages/${id}/stream`)),
      [
        await lastMessage(other, chatId),
      ],
    );
  },
});
