/**
 * A worker that times `GET /health` (or another URL, with the headers given)
 * every few milliseconds on its own thread, so that the load the test
 * generates on the main thread does not delay the measurement. Send
 * `{url, every, headers?, open?}` to start; it answers `"started"` after
 * the first sample. Send `"stop"` to get the latencies, in milliseconds, and
 * when each answered request was asked and answered, by the clock (which
 * other processes share).
 *
 * By default each request waits for the one before; `open` sends one every
 * `every` milliseconds whatever the others do, as users who do not wait for
 * each other would, so that a server that stops answering for a while is
 * timed by every request that came meanwhile, not by one.
 * @module
 */

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent) => void) | null;
  postMessage(data: unknown): void;
};

let running = false;
const latencies: number[] = [];
const spans: { asked: number; answered: number }[] = [];
const failures: string[] = [];

scope.onmessage = (event) => {
  if (event.data === "stop") {
    running = false;
    return;
  }
  running = true;
  const { url, every, headers, open } = event.data;
  (open ? sampleOpen : sample)(url, every, headers ?? {}).then(() =>
    scope.postMessage({ latencies, spans, failures })
  );
};

/** Sends one request and keeps what it saw. */
async function once(url: string, headers: Record<string, string>): Promise<void> {
  const start = performance.now();
  const asked = Date.now();
  try {
    const response = await fetch(url, { headers });
    await response.text();
    if (!response.ok) failures.push(`${response.status}`);
    latencies.push(performance.now() - start);
    spans.push({ asked, answered: Date.now() });
    if (latencies.length === 1) scope.postMessage("started");
  } catch (error) {
    failures.push(String(error));
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function sample(url: string, every: number, headers: Record<string, string>) {
  while (running) {
    const start = performance.now();
    await once(url, headers);
    const rest = every - (performance.now() - start);
    if (rest > 0) await pause(rest);
  }
}

async function sampleOpen(url: string, every: number, headers: Record<string, string>) {
  const pending = new Set<Promise<void>>();
  let next = performance.now();
  while (running) {
    const request = once(url, headers).finally(() => pending.delete(request));
    pending.add(request);
    next += every;
    const rest = next - performance.now();
    if (rest > 0) await pause(rest);
  }
  await Promise.all(pending);
}
