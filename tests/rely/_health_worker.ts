/**
 * A worker that times `GET /health` every few milliseconds on its own thread,
 * so that the load the test generates on the main thread does not delay the
 * measurement. Send `{url, every}` to start; it answers `"started"` after
 * the first sample. Send `"stop"` to get the latencies, in milliseconds, and
 * when each answered request was asked and answered, by the clock (which
 * other processes share).
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
  sample(event.data.url, event.data.every).then(() =>
    scope.postMessage({ latencies, spans, failures })
  );
};

async function sample(url: string, every: number): Promise<void> {
  while (running) {
    const start = performance.now();
    const asked = Date.now();
    try {
      const response = await fetch(url);
      await response.text();
      if (!response.ok) failures.push(`${response.status}`);
      latencies.push(performance.now() - start);
      spans.push({ asked, answered: Date.now() });
      if (latencies.length === 1) scope.postMessage("started");
    } catch (error) {
      failures.push(String(error));
    }
    const rest = every - (performance.now() - start);
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
  }
}
