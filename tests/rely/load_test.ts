/**
 * Load: 50 chats stream slow answers at once while documents are uploaded and
 * new chats prepared, against `svc api` in its own process, the load made by
 * a process of its own at a lower priority, and `/health` timed from a worker.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { tmpDir } from "../test_utils.ts";
import { checkDatabase } from "./_database.ts";
import { percentile, sampleHealth, streamAnswers, type StreamStats } from "./_load.ts";
import { Client, rss, startSvc } from "./_server.ts";

const CHATS = 50;
const ROUNDS = 6;
/** The defaults of the test assistant: 20 chunks, 20 ms apart. */
const CHUNKS = 20;
/** A document of about 200 KB, so that uploads and prepares are real work. */
const DOCUMENT = "# Load\n\n" +
  "The load test uploads this paragraph again and again.\n".repeat(4000);
/**
 * The machine is shared (other test files, other people's runs): a run whose
 * `/health` p99 misses the bound is repeated, up to this many runs in all.
 * A server that is slow by itself misses it every time.
 */
const RUNS = 3;
const GENERATOR = new URL("./_load_generator.ts", import.meta.url).pathname;
const HAS_NICE = await new Deno.Command("nice", { args: ["true"] }).output()
  .then((output) => output.success, () => false);

/** Runs the load generator at a lower priority, given the chats, and returns what it saw. */
async function generateLoad(base: string, chats: string[]) {
  const command = [Deno.execPath(), "run", "-A", GENERATOR];
  const child = new Deno.Command(HAS_NICE ? "nice" : command[0]!, {
    args: HAS_NICE ? ["-n", "10", ...command] : command.slice(1),
    cwd: new URL("../../", import.meta.url).pathname,
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const input = { base, chats, rounds: ROUNDS, chunks: CHUNKS, document: DOCUMENT };
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(input)));
  await writer.close();
  const { success, stdout } = await child.output();
  assert.ok(success, "the load generator ran to its end");
  return JSON.parse(new TextDecoder().decode(stdout)) as {
    stats: StreamStats;
    prepared: number;
    failures: string[];
  };
}

Deno.test("svc api streams 50 answers at once, complete and in order, while documents come in", async () => {
  await using dir = await tmpDir();
  await using svc = await startSvc(dir.path);
  const client = await Client.login(svc.base);
  const document = await client.upload("load.md", DOCUMENT);
  const chats = await Promise.all(
    Array.from({ length: CHATS }, (_, n) => client.createChat(`load ${n}`, [document])),
  );
  await Promise.all(chats.map((chat) => client.call("POST", `/chats/${chat.id}/prepare`)));
  // A first round, so that what is measured after it is the steady state.
  const warmUp = await streamAnswers((slot) => client.ask(chats[slot]!.id, "count"), {
    concurrency: CHATS,
    rounds: 1,
    chunks: CHUNKS,
  });
  assert.deepEqual(warmUp.problems, []);

  const memoryBefore = await rss(svc.child.pid);
  let p99 = Infinity;
  for (let run = 1; run <= RUNS && p99 >= 50; run++) {
    const health = await sampleHealth(svc.base);
    const { stats, prepared, failures } = await generateLoad(svc.base, chats.map((c) => c.id));
    const { latencies, failures: unhealthy } = await health.stop();

    assert.deepEqual(stats.problems, [], "every stream complete, in order, without an error");
    assert.equal(stats.answers, CHATS * ROUNDS);
    assert.deepEqual(failures, [], "every upload and prepare beside the streams succeeded");
    assert.ok(prepared >= 1, "documents were uploaded and chats prepared during the load");
    assert.deepEqual(unhealthy, [], "/health always answered");
    assert.ok(latencies.length >= 50, `/health was sampled throughout (${latencies.length} times)`);
    p99 = percentile(latencies, 99);
    console.log(
      `load run ${run}: ${stats.answers} answers, ${stats.chunks} chunks in ` +
        `${stats.seconds.toFixed(1)} s (${(stats.chunks / stats.seconds).toFixed(0)} chunks/s); ` +
        `first chunk p50 ${percentile(stats.firstChunk, 50).toFixed(0)} ms, whole answer p50 ` +
        `${percentile(stats.whole, 50).toFixed(0)} ms; ${prepared} documents uploaded and ` +
        `prepared beside; /health p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ` +
        `${p99.toFixed(1)} ms over ${latencies.length} samples`,
    );
  }
  const memoryAfter = await rss(svc.child.pid);
  const growth = (memoryAfter - memoryBefore) / 2 ** 20;
  console.log(
    `RSS ${(memoryBefore / 2 ** 20).toFixed(0)} MB -> ${(memoryAfter / 2 ** 20).toFixed(0)} MB`,
  );
  assert.ok(p99 < 50, `/health p99 is ${p99.toFixed(1)} ms`);
  assert.ok(growth < 200, `RSS grew by ${growth.toFixed(0)} MB`);

  // Every answer was stored whole.
  const stored: { messages: { role: string; content: string }[] }[] = await Promise.all(
    chats.map((chat) => client.call("GET", `/chats/${chat.id}`)),
  );
  for (const chat of stored) {
    const answers = chat.messages.filter((m) => m.role === "assistant");
    assert.ok(answers.length >= 1 + ROUNDS);
    assert.ok(answers.every((m) => m.content.split(" ").length === CHUNKS + 1));
  }
  assert.equal((await svc.stop("SIGTERM")).code, 0, svc.stderr());
  checkDatabase(join(svc.root, "svc.db"));
});
