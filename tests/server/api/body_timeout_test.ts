import assert from "node:assert/strict";
import { guardedBody } from "../../../server/api/body_timeout.ts";

const encoder = new TextEncoder();

/** A body that gives `chunks`, then waits for ever or fails with `end`. */
function body(chunks: string[], end?: Error): ReadableStream<Uint8Array> & { cancelled: unknown } {
  const queue = [...chunks];
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next !== undefined) return controller.enqueue(encoder.encode(next));
      if (end) return controller.error(end);
      return new Promise(() => {});
    },
    cancel(reason) {
      Object.assign(stream, { cancelled: reason });
    },
  }) as ReadableStream<Uint8Array> & { cancelled: unknown };
  return stream;
}

Deno.test("guardedBody() passes a body through as it comes", async () => {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of ["a", "b", "c"]) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
  assert.equal(await new Response(guardedBody(source, { idleTimeout: 1000 })).text(), "abc");
});

Deno.test("guardedBody() cuts a body that stops coming with 408, and cancels it", async () => {
  const source = body(["half of it"]);
  const reader = guardedBody(source, { idleTimeout: 50 }).getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), "half of it");
  await assert.rejects(reader.read(), {
    status: 408,
    message: "The request body stopped arriving: nothing came for 0.05 s (SVC_API_BODY_TIMEOUT)",
  });
  assert.equal((source.cancelled as { status: number }).status, 408);
});

Deno.test("guardedBody() turns a body cut off by its client into a 400", async () => {
  const cut = new Deno.errors.BadResource("Cannot read request body");
  const reader = guardedBody(body(["half"], cut), { idleTimeout: 1000 }).getReader();
  await reader.read();
  await assert.rejects(
    reader.read(),
    (error: { status: number; message: string; cause: unknown }) => {
      assert.equal(error.status, 400);
      assert.equal(error.message, "The request body was cut off before its end");
      assert.equal(error.cause, cut);
      return true;
    },
  );
});

Deno.test("guardedBody() counts only the client's silence, not a slow reader's", async () => {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of ["a", "b"]) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
  // No idle time at all: a timer that ran while nobody reads would be due at once.
  const reader = guardedBody(source, { idleTimeout: 0 }).getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), "a");
  // The reader comes back a turn later: after any timer set before this one, as one set while
  // nobody read would have been. The bytes were there all along.
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(new TextDecoder().decode((await reader.read()).value), "b");
  assert.equal((await reader.read()).done, true);
});

Deno.test("guardedBody() passes a cancel on to the body", async () => {
  const source = body(["a"]);
  await guardedBody(source, { idleTimeout: 1000 }).cancel("refused");
  assert.equal(source.cancelled, "refused");
});
