/**
 * The make-or-buy measure of `components/documents/pdf/`: svc's reading of a long PDF against
 * poppler's `pdftotext` and against pdfjs-dist reading every page alone, on the same file in the
 * same run: ten copies of the labelled set's TeX manual `clsguide.pdf` (330 pages,
 * `_long_pdf.ts`). Each run is a process of its own, timed from start to end, whose peak memory is
 * the high-water mark of its resident set (`VmHWM`): svc's own from `/proc/self/status`, workers
 * included, and pdftotext's sampled from its `/proc/<pid>/status` while it runs; its processor
 * time (user and system, every thread) is the last sampled from `/proc/<pid>/stat`, which on
 * shared cores says what a run cost apart from what it waited for. After the benches, a table
 * gives the medians and the ratios to pdftotext, and `bench/results/<date>-pdf.json` keeps them
 * with the machine they were taken on.
 * @module
 */
import { LONG_PDF_PAGES, longPdf, readPdfArgs, type ReadPdfArgsOptions } from "./_long_pdf.ts";

const RUNS = 5;

interface Sample {
  ms: number;
  peakBytes: number;
  cpuMs: number;
}

/** The clock ticks a second of `/proc/<pid>/stat`'s times, as Linux gives them to processes. */
const TICKS = 100;

const document = await longPdf();

/** Runs a command to its end: its wall time, and its peak memory sampled every few milliseconds. */
async function sampled(command: string, args: string[]): Promise<Sample & { stdout: string }> {
  const start = performance.now();
  const child = new Deno.Command(command, { args, stdout: "piped", stderr: "piped" }).spawn();
  let peakBytes = 0;
  let cpuMs = 0;
  let running = true;
  const watching = (async () => {
    while (running) {
      try {
        const status = await Deno.readTextFile(`/proc/${child.pid}/status`);
        peakBytes = Math.max(peakBytes, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024);
        const times = (await Deno.readTextFile(`/proc/${child.pid}/stat`)).split(") ")[1]!
          .split(" ");
        cpuMs = (Number(times[11]) + Number(times[12])) * 1000 / TICKS;
      } catch { /* ended between two samples */ }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const output = await child.output();
  const ms = performance.now() - start;
  running = false;
  await watching;
  if (!output.success) {
    throw new Error(`${command} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  return { ms, peakBytes, cpuMs, stdout: new TextDecoder().decode(output.stdout) };
}

async function svc(options: ReadPdfArgsOptions): Promise<Sample> {
  const { ms, cpuMs, stdout } = await sampled(Deno.execPath(), readPdfArgs(document, options));
  const { pages, peakBytes } = JSON.parse(stdout);
  if (pages !== LONG_PDF_PAGES) throw new Error(`svc read ${pages} pages, not ${LONG_PDF_PAGES}`);
  return { ms, peakBytes, cpuMs };
}

/** Workers beside the calling thread: one for each core the calling thread leaves. */
const WORKERS = Math.max(1, navigator.hardwareConcurrency - 1);
const rows: [string, () => Promise<Sample>][] = [
  ["pdftotext (reference)", () => sampled("pdftotext", ["-enc", "UTF-8", document, "-"])],
  ["pdfjs-dist alone on the calling thread", () => svc({ reader: "pdfjs" })],
  ["readPdfPages() on the calling thread", () => svc({})],
  [`readPdfPages() taking turns with ${WORKERS} worker(s)`, () => svc({ workers: WORKERS })],
];
const samples = new Map<string, Sample[]>(rows.map(([name]) => [name, []]));

for (const [name, run] of rows) {
  Deno.bench({
    name,
    group: `${LONG_PDF_PAGES}-page PDF`,
    baseline: name === rows[0]![0],
    n: RUNS,
    warmup: 1,
    async fn() {
      const list = samples.get(name)!;
      list.push(await run());
      if (name === rows.at(-1)![0] && list.length === RUNS + 1) await report();
    },
  });
}

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The medians of the runs after the first of each (the warm-up), printed and kept in results/. */
async function report(): Promise<void> {
  const medians = rows.map(([name]) => {
    const runs = samples.get(name)!.slice(1);
    return {
      name,
      ms: median(runs.map((run) => run.ms)),
      cpuMs: median(runs.map((run) => run.cpuMs)),
      mb: median(runs.map((run) => run.peakBytes)) / 2 ** 20,
    };
  });
  const reference = medians[0]!;
  const cpu = Deno.readTextFileSync("/proc/cpuinfo").match(/model name\s*:\s*(.+)/)?.[1];
  const load = Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
  console.log(
    `\nReading a ${LONG_PDF_PAGES}-page PDF, medians of ${RUNS} runs, on ` +
      `${navigator.hardwareConcurrency} cores of ${cpu ?? Deno.build.arch} ` +
      `(load average ${load} at the end):\n\n` +
      "| | wall time | ratio | processor time | ratio | peak memory | ratio |\n" +
      "|---|---:|---:|---:|---:|---:|---:|\n" +
      medians.map(({ name, ms, cpuMs, mb }) =>
        `| ${name} | ${(ms / 1000).toFixed(2)} s | ${(ms / reference.ms).toFixed(2)} | ` +
        `${(cpuMs / 1000).toFixed(2)} s | ${(cpuMs / reference.cpuMs).toFixed(2)} | ` +
        `${mb.toFixed(0)} MB | ${(mb / reference.mb).toFixed(1)} |`
      ).join("\n"),
  );
  const date = new Date().toISOString().slice(0, 10);
  const results = new URL(`./results/${date}-pdf.json`, import.meta.url);
  await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
  const round = (value: number, digits: number) => Number(value.toFixed(digits));
  const pdftotextVersion = (await new Deno.Command("pdftotext", { args: ["-v"], stderr: "piped" })
    .output()).stderr;
  await Deno.writeTextFile(
    results,
    JSON.stringify(
      {
        bench: "bench/pdf_bench.ts",
        date,
        document: `${LONG_PDF_PAGES} pages: ten copies of tests/fixtures/labelled/clsguide.pdf ` +
          "joined by pdfunite",
        measure: `the median of ${RUNS} runs after a warm-up, each a process of its own; ` +
          "wall time from its start to its end, processor time of all its threads, peak " +
          "memory its VmHWM",
        machine: {
          cores: navigator.hardwareConcurrency,
          cpu: cpu ?? Deno.build.arch,
          loadAverageAtEnd: Number(load),
          deno: Deno.version.deno,
          pdftotext: new TextDecoder().decode(pdftotextVersion).split("\n")[0],
        },
        rows: medians.map(({ name, ms, cpuMs, mb }) => ({
          name,
          wallSeconds: round(ms / 1000, 2),
          wallRatio: round(ms / reference.ms, 2),
          processorSeconds: round(cpuMs / 1000, 2),
          processorRatio: round(cpuMs / reference.cpuMs, 2),
          peakMiB: round(mb, 0),
          peakRatio: round(mb / reference.mb, 1),
        })),
      },
      null,
      2,
    ) + "\n",
  );
  console.log(`\nKept in ${results.pathname}`);
}
