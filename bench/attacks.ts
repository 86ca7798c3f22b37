/**
 * Attack benchmark, GUARD-2's "done when" figure: each attack of the issue is sent, one after the
 * other, at a `svc api` process of its own (LibSQL, password sign-in), round after round for a
 * few seconds, while samplers on threads of their own time `GET /health` and another user's
 * `GET /chats` every 20 ms, each request sent on time whether or not the ones before it were
 * answered (so that a pause of the server is timed by every request it held).
 *
 * The reference is a bare `Deno.serve` answering `/health` (`_bare_server.ts`), sampled the same
 * way: alone at the end, and meanwhile during every attack, so that a row's ratio compares svc
 * with the least a server does under the same load of the machine at the same moment (which
 * others share). Prints one Markdown table: the requests each attack sent and their statuses, the
 * latencies seen while it ran, and whether the process still answered at the end. Writes the
 * rows, with the messages the attacks got, to `bench/results/<date>-attacks.json`.
 *
 * Run with `deno task bench:attacks`, or `deno run -A bench/attacks.ts [keys] [seconds]` for some
 * of the attacks, each for at least `seconds` (5 unless given), e.g.
 * `deno run -A bench/attacks.ts none,docx,logins 10` (keys in `_attack_list.ts`). With env
 * `SVC_BENCH_CPU_PROF` set to a folder, each server writes a V8 CPU profile of its run there.
 * @module
 */
import { join } from "node:path";
import {
  answers,
  freePort,
  REPOSITORY,
  run,
  startProcess,
  svcTaskArgs,
} from "../tests/_process.ts";
import { failures } from "../tests/rely/_checks.ts";
import { addAccounts, PASSWORD } from "../tests/rely/_hostile_logins.ts";
import { type HealthSamples, percentile, sampleUrl } from "../tests/rely/_load.ts";
import { Client, pause, type Svc } from "../tests/rely/_server.ts";
import { type Answer, type Attack, ATTACKS } from "./_attack_list.ts";

/** The bound of the "done when": `/health` p99 during each attack, in milliseconds. */
const P99_BOUND = 250;

/** Where the servers write their CPU profiles, if anywhere. */
const CPU_PROF = Deno.env.get("SVC_BENCH_CPU_PROF");

/** How long each attack goes on, round after round, and the bare server is sampled: seconds. */
const SECONDS = Number(Deno.args[1] ?? 5);

interface Latencies {
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

/** What the samplers saw while one attack ran, and what the attack got. */
interface Row {
  key: string;
  attack: string;
  requests: number;
  rounds: number;
  /** Status code -> how many answers had it. */
  statuses: Record<string, number>;
  /** The distinct messages of the errors the attack got. */
  messages: string[];
  seconds: number;
  health: Latencies;
  chats: Latencies | null;
  /** The bare server's `/health` meanwhile. */
  bare: Latencies | null;
  /** Samples that failed: no answer, or not a 2xx. */
  sampleFailures: number;
  /** Request log lines of the server with a status of 500 or more. */
  serverErrors: number;
  alive: boolean;
  /** The machine's load averages (1, 5, 15 min) when the attack started. */
  loadavg: number[];
}

function latencies({ latencies }: HealthSamples): Latencies {
  return {
    samples: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies),
  };
}

/** `svc api` with LibSQL, the demo assistant and password sign-in, in `dir`. */
async function startTarget(dir: string, attack: Attack): Promise<Svc> {
  const root = join(dir, "root");
  await addAccounts(root, ["mallory", "ada", ...attack.accounts ?? []]);
  const port = freePort();
  const config = join(dir, "svc.toml");
  await Deno.writeTextFile(
    config,
    [
      'local_root = "root"',
      'authentication = "svc.deploy.PasswordAuthentication"',
      'source_storages = ["svc.source_storages.LibSQL"]',
      'assistants = ["svc.assistants.SvcDemoAssistant"]',
      "[api]",
      'hostname = "127.0.0.1"',
      `port = ${port}`,
      "",
    ].join("\n"),
  );
  const base = `http://127.0.0.1:${port}`;
  // Started as `deno task svc api` starts it: its V8 flags, and a copy of deno.lock that the first
  // load of an optional package (hash-wasm, for the passwords) may extend. The slowest attack once
  // took minutes, past a test child's deadline.
  const lock = join(dir, "run.lock");
  await Deno.copyFile(`${REPOSITORY}deno.lock`, lock);
  const flags = svcTaskArgs().filter((arg) => arg !== "--frozen").map((arg) =>
    arg.startsWith("--lock=") ? `--lock=${lock}` : arg
  );
  if (CPU_PROF) {
    flags.push(
      "--cpu-prof",
      `--cpu-prof-dir=${CPU_PROF}`,
      `--cpu-prof-name=${attack.key}.cpuprofile`,
    );
  }
  const svc = await startProcess(["api", "-c", config], {
    health: base,
    env: attack.env,
    deadline: 30 * 60_000,
    run: flags,
  });
  return Object.assign(svc, { base, root });
}

/** Whether the process has not ended and answers `/health`. */
async function alive(svc: Svc): Promise<boolean> {
  const ended = await Promise.race([svc.child.status.then(() => true), pause(0).then(() => false)]);
  return !ended && await answers(`${svc.base}/health`);
}

/** Samplers of `GET /health` and of the bystander's `GET /chats` on svc, and of the bare server. */
async function startSamplers(svc: Svc, bystander: Client, bare: string) {
  const samplers = await Promise.all([
    sampleUrl(`${svc.base}/health`, { open: true }),
    sampleUrl(`${svc.base}/chats`, {
      headers: { authorization: `Bearer ${bystander.token}` },
      open: true,
    }),
    sampleUrl(`${bare}/health`, { open: true }),
  ]);
  return async () => {
    const [health, chats, reference] = await Promise.all(samplers.map((s) => s.stop()));
    return { health: health!, chats: chats!, bare: reference! };
  };
}

/** Sends the attack round after round for {@linkcode SECONDS}, while the samplers run. */
async function measure(attack: Attack, bare: string): Promise<Row> {
  const dir = await Deno.makeTempDir({ prefix: "svc-attacks-" });
  try {
    await using svc = await startTarget(dir, attack);
    const [attacker, bystander] = await Promise.all([
      Client.login(svc.base, "mallory", PASSWORD),
      Client.login(svc.base, "ada", PASSWORD),
    ]);
    const notes = await bystander.upload("notes.md", "# Notes\n\nThe oven is wood-fired.\n");
    const chat = await bystander.call("POST", "/chats", {
      name: "mine",
      source_storage: "LibSQL",
      assistant: "Svc/DemoAssistant",
      params: {},
      documents: [notes],
    });
    await bystander.call("POST", `/chats/${chat.id}/prepare`);
    const send = await attack.prepare({ svc, attacker });

    const loadavg = Deno.loadavg();
    const stop = await startSamplers(svc, bystander, bare);
    const started = performance.now();
    const answers: Answer[] = [];
    let rounds = 0;
    const rest = () => SECONDS * 1000 - (performance.now() - started);
    while (rounds < (attack.rounds ?? Infinity) && (rounds === 0 || rest() > 0)) {
      answers.push(...await send(rounds++));
    }
    const seconds = (performance.now() - started) / 1000;
    const seen = await stop();

    const counts: Record<string, number> = {};
    for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
    const row: Row = {
      key: attack.key,
      attack: attack.name,
      requests: answers.length,
      rounds,
      statuses: counts,
      messages: [...new Set(answers.flatMap(({ message }) => message ? [message] : []))],
      seconds,
      health: latencies(seen.health),
      chats: latencies(seen.chats),
      bare: latencies(seen.bare),
      sampleFailures: seen.health.failures.length + seen.chats.failures.length,
      serverErrors: failures(svc).length,
      alive: await alive(svc),
      loadavg,
    };
    // A CPU profile is written as the process ends of itself.
    await svc.stop("SIGTERM");
    return row;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The bare server, sampled alone for {@linkcode SECONDS}. */
async function measureBare(bare: string): Promise<Row> {
  const loadavg = Deno.loadavg();
  const sampler = await sampleUrl(`${bare}/health`, { open: true });
  await pause(SECONDS * 1000);
  const seen = await sampler.stop();
  return {
    key: "bare",
    attack: "bare Deno.serve alone (reference)",
    requests: 0,
    rounds: 0,
    statuses: {},
    messages: [],
    seconds: SECONDS,
    health: latencies(seen),
    chats: null,
    bare: latencies(seen),
    sampleFailures: seen.failures.length,
    serverErrors: 0,
    alive: true,
    loadavg,
  };
}

function table(rows: Row[]): string {
  const header = [
    "attack",
    "requests",
    "statuses",
    "s",
    "/health n",
    "p50 ms",
    "p99 ms",
    "max ms",
    "GET /chats p99 ms",
    "bare p99 ms",
    "p99 ÷ bare",
    "failed samples",
    "5xx logged",
    "alive",
  ];
  const ms = (value: number) => value.toFixed(1);
  const lines = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const row of rows) {
    const statuses = Object.entries(row.statuses).map(([status, n]) => `${status} ×${n}`);
    const over = row.health.p99 > P99_BOUND ? " (over)" : "";
    const cells = [
      row.attack,
      row.requests,
      statuses.join(", ") || "—",
      row.seconds.toFixed(1),
      row.health.samples,
      ms(row.health.p50),
      ms(row.health.p99) + over,
      ms(row.health.max),
      row.chats ? ms(row.chats.p99) : "—",
      row.bare ? ms(row.bare.p99) : "—",
      row.bare ? (row.health.p99 / row.bare.p99).toFixed(1) : "—",
      row.sampleFailures,
      row.serverErrors,
      row.alive ? "yes" : "**no**",
    ];
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

/** The machine, as far as it bears on the figures. */
async function machine(): Promise<Record<string, unknown>> {
  const cpuinfo = await Deno.readTextFile("/proc/cpuinfo");
  const meminfo = await Deno.readTextFile("/proc/meminfo");
  const memKb = Number(/^MemTotal:\s+(\d+) kB$/m.exec(meminfo)?.[1]);
  return {
    cpu: /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? "unknown",
    cores: navigator.hardwareConcurrency,
    memoryGiB: Math.round(memKb / 2 ** 20 * 10) / 10,
    os: Deno.osRelease(),
    deno: Deno.version.deno,
    loadavg: Deno.loadavg(),
  };
}

/** The commit of the repository, with `+changes` when the work tree differs from it. */
async function commit(): Promise<string> {
  const head = await run("git", ["rev-parse", "HEAD"]);
  const status = await run("git", ["status", "--porcelain", "--untracked-files=no"]);
  return head.stdout.trim() + (status.stdout.trim() === "" ? "" : "+changes");
}

/** Starts the bare server; its URL, and how to end it. */
async function startBare(): Promise<{ base: string; stop(): Promise<void> }> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./_bare_server.ts", import.meta.url).pathname, `${port}`],
    stdout: "null",
  }).spawn();
  const base = `http://127.0.0.1:${port}`;
  while (!(await answers(`${base}/health`))) await pause(100);
  return {
    base,
    async stop() {
      child.kill("SIGKILL");
      await child.status;
    },
  };
}

if (import.meta.main) {
  const keys = Deno.args[0]?.split(",");
  const chosen = keys ? ATTACKS.filter((attack) => keys.includes(attack.key)) : ATTACKS;
  if (chosen.length === 0) {
    throw new Error(`No attack is named ${keys}; the keys: ${ATTACKS.map((a) => a.key)}`);
  }
  const before = await machine();
  const bare = await startBare();
  const rows: Row[] = [];
  try {
    for (const attack of chosen) {
      console.error(`${attack.name}...`);
      rows.push(await measure(attack, bare.base));
    }
    console.error("bare Deno.serve alone...");
    rows.push(await measureBare(bare.base));
  } finally {
    await bare.stop();
  }
  const result = { machine: before, svc: await commit(), loadavgAfter: Deno.loadavg(), rows };
  const folder = `${REPOSITORY}bench/results`;
  await Deno.mkdir(folder, { recursive: true });
  const file = `${folder}/${new Date().toISOString().slice(0, 10)}-attacks.json`;
  await Deno.writeTextFile(file, JSON.stringify(result, null, 2) + "\n");
  console.log(
    `/health and another user's GET /chats sent every 20 ms while each attack ran, against ` +
      `svc ${result.svc}, and /health of a bare Deno.serve meanwhile; load average before ` +
      `${before.loadavg}, after ${result.loadavgAfter}\n`,
  );
  console.log(table(rows));
  console.error(`Written to ${file}`);
}
