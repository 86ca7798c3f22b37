import assert from "node:assert/strict";
import { pacedBody, PaceMeter } from "../../../server/api/upload_pace.ts";

const KiB = 1024;

Deno.test("PaceMeter passes a slow link of 64 KiB/s and cuts a drip of a byte every 29 s", () => {
  const options = { timeout: 3_600_000, minRate: 4096, window: 30_000 };
  const link = new PaceMeter(options);
  // 100 MiB in chunks of 16 KiB, each after a quarter of a second of waiting.
  for (let chunk = 0; chunk < 100 * 64; chunk++) {
    assert.equal(link.waited(250, 16 * KiB), undefined, `chunk ${chunk}`);
  }
  const drip = new PaceMeter(options);
  assert.equal(drip.waited(29_000, 1), undefined);
  assert.equal(drip.untilCheck(), 1_000);
  assert.equal(drip.waited(1_000, 0), "slow");
  assert.equal(drip.lastWindowBytes, 1);
});

Deno.test("PaceMeter measures each window anew, so a fast start does not pay for a stall later", () => {
  const meter = new PaceMeter({ timeout: 3_600_000, minRate: 100, window: 1000 });
  assert.equal(meter.waited(500, 10_000), undefined);
  assert.equal(meter.waited(500, 0), undefined, "the first window had its bytes");
  assert.equal(meter.waited(999, 99), undefined);
  assert.equal(meter.waited(1, 0), "slow", "the second had 99 of 100");
});

/** A body that gives `bytes` bytes every `ms` milliseconds, `count` times. */
function drip(bytes: number, ms: number, count = Infinity): ReadableStream<Uint8Array> {
  let sent = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return new ReadableStream<Uint8Array>({
    pull: (controller) =>
      new Promise((done) => {
        timer = setTimeout(() => {
          if (sent++ >= count) controller.close();
          else controller.enqueue(new Uint8Array(bytes));
          done();
        }, ms);
      }),
    cancel: () => clearTimeout(timer),
  });
}

Deno.test("pacedBody() cuts a body slower than the least rate with a 408 that says so", async () => {
  const body = pacedBody(drip(1, 10), { timeout: 60_000, minRate: 10_000, window: 100 });
  await assert.rejects(new Response(body).arrayBuffer(), (error: Error & { status: number }) => {
    assert.equal(error.status, 408);
    assert.match(
      error.message,
      /^The upload came too slowly: \d+ bytes in 0\.1 s, under the least of 10000 bytes per second \(SVC_API_UPLOAD_MIN_RATE\); send it on a faster connection$/,
    );
    return true;
  });
});

Deno.test("pacedBody() cuts a body that is not whole by its deadline, and passes one that is", async () => {
  const late = pacedBody(drip(100, 5), { timeout: 100, minRate: 1, window: 60_000 });
  await assert.rejects(new Response(late).arrayBuffer(), {
    status: 408,
    message: "The upload took too long: it was still arriving after 0.1 s (SVC_API_UPLOAD_TIMEOUT)",
  });
  const whole = pacedBody(drip(100, 0, 50), { timeout: 60_000, minRate: 1, window: 60_000 });
  assert.equal((await new Response(whole).arrayBuffer()).byteLength, 5000);
});
