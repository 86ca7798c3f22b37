/**
 * Ingest through the REST API: `POST /chats/{id}/prepare` of a chat over the long PDF
 * (`_long_pdf.ts`, 330 pages) on a running `svc api` with the LibSQL storage and the offline
 * embedder, against poppler's `pdftotext` reading the same file in the same run, and svc's reading
 * alone (`_read_pdf.ts`, a process of its own, as a reader thread reads) to tell the parsing
 * apart from the rest. Each prepare is by a user of its own, so that no index is reused. While it
 * runs, the server's resident memory is sampled from `/proc` and `/health` is asked every 10 ms.
 * Before each prepare and after it (its chat deleted), the server is left 12 s to settle while
 * `/health` is still asked: V8 keeps the heap pages of the workers that ended in a pool for 8 s
 * before it gives them back, so memory read at once would count the last run's workers. After
 * the benches, a table gives the medians: pages per second, the server's memory settled before,
 * at its peak and settled after, and the p99 of `/health`.
 *
 * Run with `deno task bench`, or alone with
 * `deno bench -A --lock=deno.dev.lock --frozen bench/ingest_bench.ts`.
 * @module
 */
import { join } from "node:path";
import { freePort, startProcess, svcTaskArgs } from "../tests/_process.ts";
import { Client, pause, rss } from "../tests/rely/_server.ts";
import { svcToml } from "../tests/test_utils.ts";
import { pdfWorkers } from "../components/core/pdf_workers.ts";
import { LONG_PDF_PAGES, longPdf, readPdfArgs } from "./_long_pdf.ts";

const RUNS = 3;
/** How long the server is left to settle, past V8's 8 s before it gives pooled pages back. */
const SETTLE_MS = 12_000;

const document = await longPdf();
const bytes = await Deno.readFile(document);
const dir = await Deno.makeTempDir({ prefix: "svc-ingest-bench-" });
const port = freePort();
const config = join(dir, "svc.toml");
await Deno.writeTextFile(
  config,
  svcToml({
    localRoot: join(dir, "root"),
    sourceStorage: "svc.source_storages.LibSQL",
    assistant: "svc.assistants.SvcDemoAssistant",
    port,
  }),
);
const base = `http://127.0.0.1:${port}`;
// Past the default deadline of a test's child: each run waits for the server to settle twice.
// Started as `deno task svc api` starts it, with its V8 flags.
const server = await startProcess(["api", "-c", config], {
  health: base,
  deadline: 20 * 60_000,
  run: svcTaskArgs(),
});
globalThis.addEventListener("unload", () => {
  try {
    server.child.kill("SIGKILL");
  } catch {
    // It ended already.
  }
  Deno.removeSync(dir, { recursive: true });
});

/**
 * One prepare: how long it took, the server's memory settled before, at its peak and settled after,
 * `/health`'s p99.
 */
interface Ingest {
  ms: number;
  idleMiB: number;
  peakMiB: number;
  afterMiB: number;
  healthP99: number;
}

/** The server's memory once it was left to settle, `/health` asked meanwhile as during a run. */
async function settled(): Promise<number> {
  const until = performance.now() + SETTLE_MS;
  while (performance.now() < until) {
    await (await fetch(`${base}/health`)).body?.cancel();
    await pause(10);
  }
  return await rss(server.child.pid) / 2 ** 20;
}

let users = 0;

async function ingest(): Promise<Ingest> {
  const client = await Client.login(base, `reader${users++}`);
  const uploaded = await client.upload("clsguide-x10.pdf", bytes);
  const chat = await client.call("POST", "/chats", {
    name: "long",
    source_storage: "LibSQL",
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [uploaded],
  });
  const idleMiB = await settled();
  let peakMiB = idleMiB;
  const latencies: number[] = [];
  let running = true;
  const sampling = (async () => {
    while (running) {
      peakMiB = Math.max(peakMiB, await rss(server.child.pid) / 2 ** 20);
      await pause(5);
    }
  })();
  const probing = (async () => {
    while (running) {
      const asked = performance.now();
      await (await fetch(`${base}/health`)).body?.cancel();
      latencies.push(performance.now() - asked);
      await pause(10);
    }
  })();
  const started = performance.now();
  const response = await client.request("POST", `/chats/${chat.id}/prepare`);
  const text = await response.text();
  const ms = performance.now() - started;
  running = false;
  await Promise.all([sampling, probing]);
  if (!response.ok) throw new Error(`The prepare failed: ${response.status} ${text}`);
  await client.call("DELETE", `/chats/${chat.id}`);
  const afterMiB = await settled();
  return { ms, idleMiB, peakMiB, afterMiB, healthP99: percentile(latencies, 0.99) };
}

/** Reads the PDF as a reader thread does, in a process of its own: its wall time, in ms. */
async function svcReading(): Promise<number> {
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args: readPdfArgs(document, { workers: pdfWorkers() }),
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  const { pages } = JSON.parse(new TextDecoder().decode(output.stdout));
  if (pages !== LONG_PDF_PAGES) throw new Error(`svc read ${pages} pages, not ${LONG_PDF_PAGES}`);
  return performance.now() - started;
}

/** Reads the PDF with pdftotext to its end: its wall time, in milliseconds. */
async function pdftotext(): Promise<number> {
  const started = performance.now();
  const output = await new Deno.Command("pdftotext", {
    args: ["-enc", "UTF-8", document, "-"],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  return performance.now() - started;
}

function percentile(values: number[], share: number): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0;
}

function median(values: number[]): number {
  return percentile(values, 0.5);
}

const references: number[] = [];
const readings: number[] = [];
const ingests: Ingest[] = [];
const GROUP = `${LONG_PDF_PAGES}-page PDF, read or prepared`;

Deno.bench({
  name: "pdftotext (reference)",
  group: GROUP,
  baseline: true,
  n: RUNS,
  warmup: 0,
  async fn() {
    references.push(await pdftotext());
  },
});

Deno.bench({
  name: "svc reading only, a process of its own",
  group: GROUP,
  n: RUNS,
  warmup: 0,
  async fn() {
    readings.push(await svcReading());
  },
});

Deno.bench({
  name: "svc POST /chats/{id}/prepare, LibSQL",
  group: GROUP,
  n: RUNS,
  warmup: 0,
  async fn() {
    ingests.push(await ingest());
    if (ingests.length === RUNS) printTable();
  },
});

/** The medians as a Markdown table. */
function printTable(): void {
  const cpu = Deno.readTextFileSync("/proc/cpuinfo").match(/model name\s*:\s*(.+)/)?.[1];
  const load = Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
  const reference = median(references);
  const reading = median(readings);
  const ms = median(ingests.map((run) => run.ms));
  const rate = (wall: number) => (LONG_PDF_PAGES / (wall / 1000)).toFixed(0);
  const mib = (key: "idleMiB" | "peakMiB" | "afterMiB") =>
    median(ingests.map((run) => run[key])).toFixed(0);
  console.log(
    `\nIngest of a ${LONG_PDF_PAGES}-page PDF, medians of ${RUNS} runs, on ` +
      `${navigator.hardwareConcurrency} cores of ${cpu ?? Deno.build.arch} ` +
      `(load average ${load} at the end):\n\n` +
      "| | pages/s | ratio | server memory, settled → peak → settled after | `/health` p99 |\n" +
      "|---|---:|---:|---:|---:|\n" +
      `| pdftotext (reference), reading only | ${rate(reference)} | 1.00 | | |\n` +
      `| svc reading only, a process of its own | ${rate(reading)} | ` +
      `${(reference / reading).toFixed(2)} | | |\n` +
      `| svc prepare, LibSQL | ${rate(ms)} | ${(reference / ms).toFixed(2)} | ` +
      `${mib("idleMiB")} → ${mib("peakMiB")} → ${mib("afterMiB")} MiB | ` +
      `${median(ingests.map((run) => run.healthP99)).toFixed(1)} ms |\n\n` +
      "The server's memory at each run, settled → peak → settled after: " +
      ingests.map((run) =>
        `${run.idleMiB.toFixed(0)} → ${run.peakMiB.toFixed(0)} → ${run.afterMiB.toFixed(0)} MiB`
      ).join(", "),
  );
}
