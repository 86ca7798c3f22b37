import assert from "node:assert/strict";
import { SvcError } from "../../components/core/errors.ts";
import { Message, MessageRole } from "../../components/core/message.ts";

async function* characters(text: string) {
  for (const character of text) yield character;
}

Deno.test("Message with fixed content gives it at once, read and iterated", async () => {
  const message = new Message("content");
  assert.equal(message.content, "content");
  assert.equal(String(message), "content");
  assert.equal(message.role, MessageRole.SYSTEM);
  assert.equal(await message.read(), "content");
  assert.deepEqual(await Array.fromAsync(message), ["content"]);
});

Deno.test("Message with a stream refuses its content until it was read", () => {
  const message = new Message(characters("content"));
  assert.throws(() => message.content, (e) => e instanceof SvcError && /read\(\)/.test(e.message));
  assert.throws(() => String(message), SvcError);
  assert.equal(message.isComplete, false);
});

Deno.test("Message with a stream yields every chunk, then knows its content", async () => {
  const message = new Message(characters("content"), { role: "assistant" });
  assert.deepEqual(await Array.fromAsync(message), [..."content"]);
  assert.equal(message.content, "content");
  assert.deepEqual(await Array.fromAsync(message), [..."content"], "chunks replay");
});

Deno.test("Message.read() consumes a stream and returns the whole text", async () => {
  const message = new Message(characters("content"));
  assert.equal(await message.read(), "content");
  assert.equal(message.content, "content");
});

Deno.test("Message takes a plain iterable of chunks", async () => {
  const message = new Message(["a", "b"]);
  assert.equal(await message.read(), "ab");
});

Deno.test("Message cannot be read twice at the same time", async () => {
  const message = new Message(characters("ab"));
  const first = message[Symbol.asyncIterator]();
  assert.deepEqual(await first.next(), { value: "a", done: false });
  await assert.rejects(message.read(), /being read already/);
  await first.return();
});

Deno.test("Message whose reader stopped early stays incomplete", async () => {
  const message = new Message(characters("abc"));
  for await (const _ of message) break;
  assert.equal(message.isComplete, false);
  assert.throws(() => message.content, /not read to its end/);
});

Deno.test("Message whose stream fails passes the error on and stays unknown", async () => {
  async function* failing() {
    yield "a";
    throw new Error("provider down");
  }
  const message = new Message(failing());
  await assert.rejects(message.read(), /provider down/);
  assert.throws(() => message.content, /stream failed/);
});

Deno.test("Message refuses a chunk that is not a string", async () => {
  const message = new Message([42 as unknown as string]);
  await assert.rejects(message.read(), /yielded number, not a string/);
});

Deno.test("Message has an id, a timestamp and sources", () => {
  const before = Date.now();
  const message = new Message("x");
  const after = Date.now();
  assert.match(message.id, /^[0-9a-f-]{36}$/);
  const time = message.timestamp.getTime();
  assert.ok(before <= time && time <= after, "the time it was made");
  assert.deepEqual(message.sources, []);
  assert.notEqual(new Message("x").id, message.id);
});
