import assert from "node:assert/strict";
import { SvcError } from "../../components/core/errors.ts";
import {
  CUT_OFF_MESSAGE,
  DEFAULT_SHUTDOWN_TIMEOUT,
  shutdownTimeout,
  Streams,
} from "../../server/shutdown.ts";

const JSON_LINES = { "content-type": "application/x-ndjson" };

/** A body whose lines the test writes, one chunk each, and whose cancellation it sees. */
function lineSource() {
  const encoder = new TextEncoder();
  const cancelled = Promise.withResolvers<unknown>();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: (reason) => cancelled.resolve(reason),
  });
  return {
    body,
    cancelled: cancelled.promise,
    write: (line: unknown) => controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`)),
    close: () => controller.close(),
  };
}

Deno.test("shutdownTimeout() reads seconds, 10 when unset, and refuses what is not a number", () => {
  assert.equal(shutdownTimeout(undefined), DEFAULT_SHUTDOWN_TIMEOUT);
  assert.equal(shutdownTimeout(""), 10);
  assert.equal(shutdownTimeout("0"), 0);
  assert.equal(shutdownTimeout("0.5"), 0.5);
  for (const value of ["-1", "ten", "Infinity"]) {
    assert.throws(() => shutdownTimeout(value), (error: unknown) => {
      assert.ok(error instanceof SvcError);
      assert.equal(
        error.message,
        `SVC_SHUTDOWN_TIMEOUT must be a number of seconds, 0 or more, not "${value}"`,
      );
      return true;
    });
  }
});

Deno.test("Streams cuts off a JSON Lines stream after its last whole line, and cancels its source", async () => {
  const streams = new Streams();
  const source = lineSource();
  const response = streams.track(new Response(source.body, { status: 200, headers: JSON_LINES }));
  assert.equal(response.headers.get("content-type"), "application/x-ndjson");
  assert.equal(streams.size, 1);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  source.write({ content: "0 " });
  assert.equal((await reader.read()).value, '{"content":"0 "}\n');

  streams.cutOff();
  assert.equal(streams.size, 0);
  let rest = "";
  for (let next = await reader.read(); !next.done; next = await reader.read()) rest += next.value;
  assert.deepEqual(JSON.parse(rest), { error: { message: CUT_OFF_MESSAGE } });
  const reason = await source.cancelled;
  assert.ok(reason instanceof SvcError && reason.status === 503);
});

Deno.test("Streams forgets a stream that ended or that the client left, and passes other bodies", async () => {
  const streams = new Streams();
  const ended = lineSource();
  const response = streams.track(new Response(ended.body, { headers: JSON_LINES }));
  ended.write({ content: "all" });
  ended.close();
  assert.equal(await response.text(), '{"content":"all"}\n');
  assert.equal(streams.size, 0);

  const left = lineSource();
  const leaving = streams.track(new Response(left.body, { headers: JSON_LINES }));
  assert.equal(streams.size, 1);
  await leaving.body!.cancel("gone");
  assert.equal(await left.cancelled, "gone");
  assert.equal(streams.size, 0);

  const json = Response.json({ status: "ok" });
  assert.equal(streams.track(json), json);
  assert.equal(streams.size, 0);
});
