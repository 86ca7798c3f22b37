/**
 * Whole-process start: `svc --version` against a script that prints one
 * line, and `svc api` (the demo components) until `/health` answers against a
 * bare `Deno.serve` answering it, each started the same way, as `deno task
 * svc` starts svc (`svcTaskArgs()`: Deno's npm cache, deno.lock, svc's V8
 * flags), in the same run. `deno bench` shows the time of each start and its
 * ratio to the reference; once every start has run, the file
 * prints one Markdown table with the medians, the resident memory of each
 * server once idle (from `/proc`), the ratios and the machine they ran on.
 *
 * Run with `deno task bench`, or alone with
 * `deno bench -A --lock=deno.dev.lock --frozen bench/start_bench.ts`.
 * @module
 */
import { join } from "node:path";
import { answers, freePort, MAIN, REPOSITORY, SECRETS, svcTaskArgs } from "../tests/_process.ts";
import { pause, rss } from "../tests/rely/_server.ts";
import { svcToml } from "../tests/test_utils.ts";

/** Starts of each kind, after one warm-up start. */
const RUNS = 7;
/** How long a server is left idle before its memory is read, in milliseconds. */
const IDLE_MS = 500;

const BARE_VERSION = join(REPOSITORY, "bench/_bare_version.ts");
const BARE_SERVER = join(REPOSITORY, "bench/_bare_server.ts");

const dir = await Deno.makeTempDir({ prefix: "svc-start-bench-" });
const port = freePort();
const config = join(dir, "svc.toml");
await Deno.writeTextFile(
  config,
  svcToml({
    sourceStorage: "svc.source_storages.SvcDemoSourceStorage",
    assistant: "svc.assistants.SvcDemoAssistant",
    port,
  }),
);

/** Runs `deno run` of a script to its end and returns how long it took, in milliseconds. */
async function runToEnd(args: string[]): Promise<number> {
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args: [...svcTaskArgs(), ...args],
    cwd: REPOSITORY,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  return performance.now() - started;
}

/** A server started with `deno run`, once `/health` answers on `port`. */
interface Started extends AsyncDisposable {
  /** From the spawn until `/health` answered, in milliseconds. */
  ms: number;
  pid: number;
}

async function startServer(args: string[]): Promise<Started> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [...svcTaskArgs(), ...args],
    cwd: REPOSITORY,
    env: SECRETS,
    stdout: "null",
    stderr: "null",
  }).spawn();
  const end = async () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // It ended already.
    }
    await child.status;
  };
  try {
    while (!(await answers(`http://127.0.0.1:${port}/health`))) await pause(2);
  } catch (error) {
    await end();
    throw error;
  }
  return { ms: performance.now() - started, pid: child.pid, [Symbol.asyncDispose]: end };
}

const API_ARGS = [MAIN, "api", "-c", config];
const BARE_API_ARGS = [BARE_SERVER, `${port}`];

/** One start of a server: how long until ready, and its memory once idle, in MiB. */
interface Idle {
  ms: number;
  mib: number;
}

async function startAndIdle(args: string[]): Promise<Idle> {
  await using server = await startServer(args);
  await pause(IDLE_MS);
  return { ms: server.ms, mib: (await rss(server.pid)) / 2 ** 20 };
}

/** The medians of `RUNS` starts of each kind, taken in turns, after one warm-up start each. */
async function measure() {
  const times = { version: [] as number[], bareVersion: [] as number[] };
  const servers = { api: [] as Idle[], bare: [] as Idle[] };
  for (let run = 0; run <= RUNS; run++) {
    const version = await runToEnd([MAIN, "--version"]);
    const bareVersion = await runToEnd([BARE_VERSION]);
    const api = await startAndIdle(API_ARGS);
    const bare = await startAndIdle(BARE_API_ARGS);
    if (run === 0) continue;
    times.version.push(version);
    times.bareVersion.push(bareVersion);
    servers.api.push(api);
    servers.bare.push(bare);
  }
  return { times, servers };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The processor, cores and Deno of this machine, for the table's caption. */
function machine(): string {
  let cpu: string = Deno.build.arch;
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(Deno.readTextFileSync("/proc/cpuinfo"))?.[1] ?? cpu;
  } catch {
    // Not Linux: the architecture says enough.
  }
  return `${cpu}, ${navigator.hardwareConcurrency} cores, ${Deno.build.os}, Deno ${Deno.version.deno}`;
}

/** The table of medians and ratios. */
function table({ times, servers }: Awaited<ReturnType<typeof measure>>): string {
  const lines = [
    `Medians of ${RUNS} starts each on ${machine()}; ratio = svc / reference.`,
    "",
    "| figure | svc | reference | ratio |",
    "|---|---|---|---|",
  ];
  const row = (figure: string, ours: number[], theirs: number[], unit: string) => {
    const [a, b] = [median(ours), median(theirs)];
    lines.push(
      `| ${figure} | ${a.toFixed(0)} ${unit} | ${b.toFixed(0)} ${unit} | ${(a / b).toFixed(2)} |`,
    );
  };
  row("`svc --version`, whole process", times.version, times.bareVersion, "ms");
  const [api, bare] = [servers.api, servers.bare];
  row("`svc api` until `/health` answers", api.map((s) => s.ms), bare.map((s) => s.ms), "ms");
  row(
    `\`svc api\` resident memory, idle ${IDLE_MS} ms after start`,
    api.map((s) => s.mib),
    bare.map((s) => s.mib),
    "MiB",
  );
  return lines.join("\n");
}

console.log(`\n${table(await measure())}\n`);

// The same starts for `deno bench`, which times each whole: start, ready, end.
const VERSION_GROUP = "whole process: print the version";
const API_GROUP = "whole process: start until /health answers";

Deno.bench({
  name: "bare script printing a line (reference)",
  group: VERSION_GROUP,
  baseline: true,
  n: RUNS,
  warmup: 1,
  fn: async () => void await runToEnd([BARE_VERSION]),
});

Deno.bench({
  name: "svc --version",
  group: VERSION_GROUP,
  n: RUNS,
  warmup: 1,
  fn: async () => void await runToEnd([MAIN, "--version"]),
});

Deno.bench({
  name: "bare Deno.serve (reference)",
  group: API_GROUP,
  baseline: true,
  n: RUNS,
  warmup: 1,
  fn: async () => await (await startServer(BARE_API_ARGS))[Symbol.asyncDispose](),
});

Deno.bench({
  name: "svc api, demo components",
  group: API_GROUP,
  n: RUNS,
  warmup: 1,
  fn: async () => await (await startServer(API_ARGS))[Symbol.asyncDispose](),
});

globalThis.addEventListener("unload", () => {
  Deno.removeSync(dir, { recursive: true });
});
