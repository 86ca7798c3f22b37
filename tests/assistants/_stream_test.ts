import assert from "node:assert/strict";
import { providerError } from "../../components/assistants/_errors.ts";
import { sleep, streamAnswer, withDeadlines } from "../../components/assistants/_stream.ts";
import { SvcError } from "../../components/core/errors.ts";
import { within } from "./_fake_server.ts";

/** Milliseconds that only a wrong wait reaches: a deadline or timeout that must not be awaited. */
const LONG = 10_000;

/**
 * Items after waits, `[wait in ms, item]`; then, with `hold`, it waits until aborted. An item
 * without a wait comes before any timer can fire.
 */
function scripted<T>(steps: [number, T][], options: { hold?: boolean; log?: string[] } = {}) {
  return async function* (signal: AbortSignal): AsyncGenerator<T> {
    signal.addEventListener("abort", () => options.log?.push("call aborted"), { once: true });
    for (const [wait, item] of steps) {
      if (wait > 0) await sleep(wait, signal);
      if (signal.aborted) return;
      yield item;
    }
    if (!options.hold) return;
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
  };
}

async function drain<T>(items: AsyncIterable<T>): Promise<{ seen: T[]; error?: Error }> {
  const seen: T[] = [];
  try {
    for await (const item of items) seen.push(item);
    return { seen };
  } catch (error) {
    return { seen, error: error as Error };
  }
}

const onTimeout = (started: boolean) => new Error(started ? "stalled" : "silent");

Deno.test("withDeadlines() throws when the first item is late, and aborts the call", async () => {
  const log: string[] = [];
  const { seen, error } = await drain(
    withDeadlines(scripted([[200, "late"]], { log }), { first: 30, between: 1000, onTimeout }),
  );
  assert.deepEqual(seen, []);
  assert.equal(error?.message, "silent");
  assert.deepEqual(log, ["call aborted"]);
});

Deno.test("withDeadlines() throws when a later item is late", async () => {
  const { seen, error } = await drain(
    withDeadlines(scripted([[0, "a"], [5, "b"]], { hold: true }), {
      first: 1000,
      between: 30,
      onTimeout,
    }),
  );
  assert.deepEqual(seen, ["a", "b"]);
  assert.equal(error?.message, "stalled");
});

Deno.test("withDeadlines() keeps the first deadline until an item counts", async () => {
  const { seen, error } = await drain(
    withDeadlines(scripted([[0, ""], [0, ""], [0, ""], [500, "late"]]), {
      first: 50,
      between: LONG,
      counts: (item) => item !== "",
      onTimeout,
    }),
  );
  assert.deepEqual(seen, ["", "", ""]);
  assert.equal(error?.message, "silent");
});

Deno.test("withDeadlines() ends quietly, at once, when its signal aborts", async () => {
  const log: string[] = [];
  const controller = new AbortController();
  const items = withDeadlines(scripted([[0, "a"]], { hold: true, log }), {
    first: LONG,
    between: LONG,
    signal: controller.signal,
    onTimeout,
  });
  const iterator = items[Symbol.asyncIterator]();
  assert.deepEqual(await iterator.next(), { value: "a", done: false });
  const pending = iterator.next();
  controller.abort();
  // Its deadline was set before this timer: ignoring the abort would end with it, stalled.
  assert.deepEqual(await within(pending, LONG, "the end"), { value: undefined, done: true });
  assert.deepEqual(log, ["call aborted"]);
});

Deno.test("withDeadlines() cancels the call when the consumer stops early", async () => {
  const log: string[] = [];
  for await (
    const item of withDeadlines(scripted([[0, "a"], [0, "b"]], { log }), {
      first: 1000,
      between: 1000,
      onTimeout,
    })
  ) {
    assert.equal(item, "a");
    break;
  }
  assert.deepEqual(log, ["call aborted"]);
});

Deno.test("withDeadlines() does not start the call when the signal aborted before", async () => {
  let opened = false;
  const items = withDeadlines((signal) => {
    opened = true;
    return scripted([[0, "a"]])(signal);
  }, { first: 1000, between: 1000, signal: AbortSignal.abort(), onTimeout });
  assert.deepEqual(await drain(items), { seen: [] });
  assert.equal(opened, false);
});

/** A call that fails with each error in turn, then streams `texts`. */
function failing(errors: Error[], texts: string[]) {
  let calls = 0;
  const open = async function* (): AsyncGenerator<string> {
    calls++;
    const error = errors.shift();
    if (error) throw error;
    yield* texts;
  };
  return { open, calls: () => calls };
}

Deno.test("streamAnswer() leaves out empty texts", async () => {
  const { seen, error } = await drain(
    streamAnswer(scripted([[0, ""], [0, "a"], [0, ""], [0, "b"]]), { provider: "P" }),
  );
  assert.equal(error, undefined);
  assert.deepEqual(seen, ["a", "b"]);
});

Deno.test("streamAnswer() retries a 429 and a 503 with growing waits", async () => {
  const call = failing([
    providerError("P", { httpStatus: 429, message: "Slow down" }),
    providerError("P", { httpStatus: 503, message: "Busy" }),
  ], [
    "ok",
  ]);
  const started = performance.now();
  const { seen, error } = await drain(
    streamAnswer(call.open, { provider: "P", retryDelay: 20, timeout: 1000 }),
  );
  assert.equal(error, undefined);
  assert.deepEqual(seen, ["ok"]);
  assert.equal(call.calls(), 3);
  assert.ok(performance.now() - started >= 55, "it waited 20 ms, then 40 ms");
});

Deno.test("streamAnswer() gives up after the last try and names the cause", async () => {
  const call = failing(
    [1, 2, 3, 4].map(() => providerError("P", { httpStatus: 500, message: "Broken" })),
    ["never"],
  );
  const { error } = await drain(
    streamAnswer(call.open, { provider: "P", tries: 3, retryDelay: 1, timeout: 1000 }),
  );
  assert.equal(error?.message, "P answered 500: Broken (tried 3 times)");
  assert.equal((error as SvcError).status, 502);
  assert.equal(call.calls(), 3);
});

Deno.test("streamAnswer() does not retry what trying again cannot fix", async () => {
  for (
    const failure of [
      providerError("P", { httpStatus: 400, message: "Bad" }),
      new SvcError("Misconfigured"),
    ]
  ) {
    const call = failing([failure], ["never"]);
    const { error } = await drain(streamAnswer(call.open, { provider: "P", retryDelay: 1 }));
    assert.equal(error, failure);
    assert.equal(call.calls(), 1);
  }
});

Deno.test("streamAnswer() does not retry once it gave out text", async () => {
  let calls = 0;
  const open = async function* () {
    calls++;
    yield "partial";
    throw providerError("P", { httpStatus: 500, message: "Broken" });
  };
  const { seen, error } = await drain(streamAnswer(open, { provider: "P", retryDelay: 1 }));
  assert.deepEqual(seen, ["partial"]);
  assert.equal(error?.message, "P answered 500: Broken");
  assert.equal(calls, 1);
});

Deno.test("streamAnswer() gives up at once when the wait asked for outlasts the timeout", async () => {
  const call = failing([
    providerError("P", { httpStatus: 429, message: "Slow down", retryAfter: 2 * LONG }),
  ], ["never"]);
  const answer = drain(streamAnswer(call.open, { provider: "P", timeout: LONG }));
  const { error } = await within(answer, LONG / 2, "giving up");
  assert.equal(error?.message, "P answered 429: Slow down");
  assert.equal(call.calls(), 1);
});

Deno.test("streamAnswer() times the first text over all tries", async () => {
  let calls = 0;
  const open = (signal: AbortSignal) => {
    calls++;
    return calls === 1
      ? failing([providerError("P", { httpStatus: 503, message: "Busy" })], []).open()
      : scripted([[950, "late"]], { hold: true })(signal);
  };
  // The second try starts 100 ms or more into the second: "late" beats a fresh second, not what
  // is left of the first one.
  const { seen, error } = await drain(
    streamAnswer(open, { provider: "P", timeout: 1000, retryDelay: 100 }),
  );
  assert.deepEqual(seen, []);
  assert.equal(error?.message, "P did not answer within 1 s");
  assert.equal((error as SvcError).status, 504);
  assert.equal(calls, 2);
});

Deno.test("streamAnswer() says when the stream stalls after some text", async () => {
  const { seen, error } = await drain(
    streamAnswer(scripted([[0, "a"]], { hold: true }), { provider: "P", timeout: 50 }),
  );
  assert.deepEqual(seen, ["a"]);
  assert.equal(error?.message, "P stopped answering for 0.05 s");
});

Deno.test("sleep() waits, unless its signal aborts", async () => {
  const started = performance.now();
  assert.equal(await sleep(30), true);
  assert.ok(performance.now() - started >= 25);
  const controller = new AbortController();
  const waiting = sleep(LONG, controller.signal);
  controller.abort();
  assert.equal(await within(waiting, LONG, "the aborted wait"), false);
  assert.equal(await sleep(10, AbortSignal.abort()), false);
});
