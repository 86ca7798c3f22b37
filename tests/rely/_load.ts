/**
 * The load that the load test and `bench/load.ts` generate: many streamed
 * answers at once, each checked line by line, and `/health` timed beside them
 * from a worker.
 * @module
 */

/** What a run of streamed answers gave. */
export interface StreamStats {
  answers: number;
  chunks: number;
  /** The wall time of the whole run, in seconds. */
  seconds: number;
  /** Milliseconds from the request to the first line, per answer. */
  firstChunk: number[];
  /** Milliseconds from the request to the end of the stream, per answer. */
  whole: number[];
  /** What was wrong with any answer: an error status or line, a chunk missing or out of order. */
  problems: string[];
}

/** Options of {@linkcode streamAnswers}. */
export interface StreamAnswersOptions {
  /** How many answers stream at once; answer `i` of a round goes to slot `i`. */
  concurrency: number;
  /** How many answers each slot asks for, one after the other. */
  rounds: number;
  /** How many chunks every answer must have: `"0 "`, `"1 "`, ... */
  chunks: number;
}

/**
 * Streams `rounds` answers in each of `concurrency` slots at once, asking with
 * `ask(slot)`, and checks that every answer is `chunks` lines numbered in
 * order, with one id and no error line.
 */
export async function streamAnswers(
  ask: (slot: number) => Promise<Response>,
  options: StreamAnswersOptions,
): Promise<StreamStats> {
  const stats: StreamStats = {
    answers: 0,
    chunks: 0,
    seconds: 0,
    firstChunk: [],
    whole: [],
    problems: [],
  };
  const start = performance.now();
  const slot = async (n: number) => {
    for (let round = 0; round < options.rounds; round++) {
      try {
        await oneAnswer(() => ask(n), options.chunks, stats);
      } catch (error) {
        stats.problems.push(`slot ${n}, round ${round}: ${error}`);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, n) => slot(n)));
  stats.seconds = (performance.now() - start) / 1000;
  return stats;
}

async function oneAnswer(ask: () => Promise<Response>, chunks: number, stats: StreamStats) {
  const start = performance.now();
  const response = await ask();
  if (!response.ok) throw new Error(`status ${response.status}: ${await response.text()}`);
  let buffer = "";
  let count = 0;
  let id: string | undefined;
  for await (const text of response.body!.pipeThrough(new TextDecoderStream())) {
    buffer += text;
    let end: number;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = JSON.parse(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      if (count === 0) stats.firstChunk.push(performance.now() - start);
      if (line.error) throw new Error(`error line after ${count} chunks: ${line.error.message}`);
      if (line.content !== `${count} `) throw new Error(`chunk ${count} is ${line.content}`);
      id ??= line.id;
      if (line.id !== id) throw new Error(`chunk ${count} has id ${line.id}, not ${id}`);
      count++;
    }
  }
  if (count !== chunks) throw new Error(`${count} chunks, not ${chunks}`);
  stats.whole.push(performance.now() - start);
  stats.answers++;
  stats.chunks += count;
}

/** What a {@linkcode HealthSampler} saw. */
export interface HealthSamples {
  /** Of each answer, in milliseconds. */
  latencies: number[];
  /** When each answered request was asked and answered, by `Date.now()`. */
  spans: { asked: number; answered: number }[];
  failures: string[];
}

/** `GET /health` timed from a worker until `stop()`. */
export interface HealthSampler {
  /** Stops sampling; what it saw. */
  stop(): Promise<HealthSamples>;
}

/** Starts timing `GET <base>/health` every `every` milliseconds on another thread; settles once it runs. */
export function sampleHealth(base: string, every = 20): Promise<HealthSampler> {
  return sampleUrl(`${base}/health`, { every });
}

/** Options of {@linkcode sampleUrl}. */
export interface SampleUrlOptions {
  /**
   * Milliseconds from the start of one request to the start of the next, unless one takes longer.
   * @default {20}
   */
  every?: number;
  /** Headers of each request, e.g. a bearer token's. */
  headers?: Record<string, string>;
  /**
   * Whether each request is sent on time whatever the ones before it do, rather than after the
   * one before has been answered: a pause of the server is then timed by every request sent
   * during it, as it is felt by users who do not wait for each other.
   * @default {false}
   */
  open?: boolean;
}

/** Starts timing `GET <url>` on another thread, as {@linkcode sampleHealth} does `/health`. */
export async function sampleUrl(
  url: string,
  options: SampleUrlOptions = {},
): Promise<HealthSampler> {
  const worker = new Worker(new URL("./_health_worker.ts", import.meta.url), { type: "module" });
  const started = Promise.withResolvers<void>();
  const results = Promise.withResolvers<HealthSamples>();
  worker.onmessage = (event) => {
    if (event.data === "started") started.resolve();
    else results.resolve(event.data);
  };
  const { every = 20, headers, open = false } = options;
  worker.postMessage({ url, every, headers, open });
  await started.promise;
  return {
    async stop() {
      worker.postMessage("stop");
      try {
        return await results.promise;
      } finally {
        worker.terminate();
      }
    },
  };
}

/** The `p`-th percentile (0-100) of the values, by the nearest rank; NaN for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}
