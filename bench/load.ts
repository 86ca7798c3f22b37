/**
 * Load benchmark: streamed answers at 10, 50 and 200 concurrent streams
 * against `svc api` (the test assistant: 20 chunks, 20 ms apart) and, in the
 * same run, against a bare `Deno.serve` that streams the same lines with the
 * same pauses (`_reference_server.ts`). Both run in their own process on
 * loopback; `/health` is timed from a worker beside the load, and each
 * server's resident memory read after each level. Prints one Markdown table
 * with svc, the reference and their ratio at each level.
 *
 * Run with `deno task bench:load`, or `deno run -A bench/load.ts [levels]
 * [rounds]`, e.g. `deno run -A bench/load.ts 10,50 2`.
 * @module
 */
import { answers, freePort } from "../tests/_process.ts";
import { percentile, sampleHealth, streamAnswers, type StreamStats } from "../tests/rely/_load.ts";
import { Client, pause, rss, startSvc } from "../tests/rely/_server.ts";

const LEVELS = (Deno.args[0] ?? "10,50,200").split(",").map(Number);
const ROUNDS = Number(Deno.args[1] ?? 3);
const CHUNKS = 20;
const DELAY_MS = 20;

/** What one server did at one level. */
interface Row {
  stats: StreamStats;
  health: number[];
  /** CPU time of the server process per answer, in milliseconds. */
  cpuPerAnswer: number;
  /** Resident memory of the server process after the level, in MiB. */
  rssMiB: number;
}

/** Runs every level against a server, given how to ask it for an answer in a slot. */
async function measure(
  pid: number,
  base: string,
  ask: (slot: number) => Promise<Response>,
): Promise<Row[]> {
  // A first round so that what is measured is the steady state.
  await streamAnswers(ask, { concurrency: Math.max(...LEVELS), rounds: 1, chunks: CHUNKS });
  const rows: Row[] = [];
  for (const concurrency of LEVELS) {
    const cpuBefore = await cpuSeconds(pid);
    const sampler = await sampleHealth(base);
    const stats = await streamAnswers(ask, { concurrency, rounds: ROUNDS, chunks: CHUNKS });
    const { latencies } = await sampler.stop();
    const cpu = (await cpuSeconds(pid)) - cpuBefore;
    if (stats.problems.length > 0) throw new Error(stats.problems.slice(0, 5).join("\n"));
    rows.push({
      stats,
      health: latencies,
      cpuPerAnswer: (cpu * 1000) / stats.answers,
      rssMiB: (await rss(pid)) / 2 ** 20,
    });
  }
  return rows;
}

async function measureSvc(): Promise<Row[]> {
  const dir = await Deno.makeTempDir({ prefix: "svc-bench-" });
  try {
    await using svc = await startSvc(dir);
    const client = await Client.login(svc.base);
    const document = await client.upload("bench.md", "# Bench\n\nThe load benchmark asks this.\n");
    const chats = await Promise.all(
      Array.from(
        { length: Math.max(...LEVELS) },
        (_, n) =>
          client.createChat(`bench ${n}`, [document], { chunks: CHUNKS, delay_ms: DELAY_MS }),
      ),
    );
    for (const chat of chats) await client.call("POST", `/chats/${chat.id}/prepare`);
    return await measure(svc.child.pid, svc.base, (slot) => client.ask(chats[slot]!.id, "count"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function measureReference(): Promise<Row[]> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./_reference_server.ts", import.meta.url).pathname, `${port}`],
    stdout: "null",
  }).spawn();
  try {
    const base = `http://127.0.0.1:${port}`;
    while (!(await answers(`${base}/health`))) await pause(100);
    const path = `answer?chunks=${CHUNKS}&delay_ms=${DELAY_MS}`;
    return await measure(
      child.pid,
      base,
      (slot) => fetch(`${base}/chats/${slot}/${path}`, { method: "POST", body: "{}" }),
    );
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
}

async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The figures of a row, in the table's column order. */
function figures({ stats, health, cpuPerAnswer, rssMiB }: Row): number[] {
  return [
    stats.answers / stats.seconds,
    stats.chunks / stats.seconds,
    percentile(stats.firstChunk, 50),
    percentile(stats.firstChunk, 99),
    percentile(stats.whole, 50),
    percentile(stats.whole, 99),
    percentile(health, 50),
    percentile(health, 99),
    cpuPerAnswer,
    rssMiB,
  ];
}

function table(svc: Row[], reference: Row[]): string {
  const header = [
    "streams",
    "server",
    "answers/s",
    "chunks/s",
    "first chunk p50 ms",
    "p99",
    "whole answer p50 ms",
    "p99",
    "/health p50 ms",
    "p99",
    "CPU ms/answer",
    "RSS MiB",
  ];
  const lines = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  const show = (values: number[], digits: number) => values.map((v) => v.toFixed(digits));
  LEVELS.forEach((level, i) => {
    const ours = figures(svc[i]!);
    const theirs = figures(reference[i]!);
    lines.push(`| ${level} | svc | ${show(ours, 1).join(" | ")} |`);
    lines.push(`| ${level} | reference | ${show(theirs, 1).join(" | ")} |`);
    lines.push(`| ${level} | ratio | ${show(ours.map((v, j) => v / theirs[j]!), 2).join(" | ")} |`);
  });
  return lines.join("\n");
}

if (import.meta.main) {
  console.error(`Levels ${LEVELS.join(", ")}; ${ROUNDS} answers per stream; svc first...`);
  const svc = await measureSvc();
  console.error("...then the reference");
  const reference = await measureReference();
  console.log(
    `${ROUNDS} answers per stream of ${CHUNKS} chunks ${DELAY_MS} ms apart; ` +
      "ratio = svc / reference (throughput: higher is better; latency, CPU and memory: lower)\n",
  );
  console.log(table(svc, reference));
}
