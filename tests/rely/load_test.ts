/**
 * Load: 50 chats stream slow answers at once while documents are uploaded and
 * new chats prepared, against `svc api` in its own process, the load made by
 * a process of its own at a lower priority, and `/health` asked from a worker
 * throughout. How fast is for `bench/load.ts`: here only what must hold on
 * any machine, however busy.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { denoArgs, run, spawn } from "../_process.ts";
import { tmpDir } from "../test_utils.ts";
import { checkDatabase } from "./_database.ts";
import { sampleHealth, type StreamStats } from "./_load.ts";
import { Client, startSvc } from "./_server.ts";
import { integration } from "../_tier.ts";

const CHATS = 50;
const ROUNDS = 6;
/** The defaults of the test assistant: 20 chunks, 20 ms apart. */
const CHUNKS = 20;
/** A document of about 200 KB, so that uploads and prepares are real work. */
const DOCUMENT = "# Load\n\n" +
  "The load test uploads this paragraph again and again.\n".repeat(4000);
const GENERATOR = new URL("./_load_generator.ts", import.meta.url).pathname;
const HAS_NICE = await run("nice", ["true"]).then((output) => output.success, () => false);

/** Runs the load generator at a lower priority, given the chats, and returns what it saw. */
async function generateLoad(base: string, chats: string[]) {
  const command = [Deno.execPath(), ...denoArgs("run", "-A", GENERATOR)];
  const child = HAS_NICE
    ? spawn("nice", ["-n", "10", ...command], { stdin: "piped" })
    : spawn(command[0]!, command.slice(1), { stdin: "piped" });
  const input = { base, chats, rounds: ROUNDS, chunks: CHUNKS, document: DOCUMENT };
  const writer = child.process.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(input)));
  await writer.close();
  const { success, stdout, stderr } = await child.ended;
  assert.ok(success, `the load generator ran to its end:\n${stderr}`);
  return JSON.parse(stdout) as {
    stats: StreamStats;
    prepared: number;
    failures: string[];
    /** When the first answer was asked for and when the last one ended, by the clock. */
    streaming: { from: number; to: number };
  };
}

integration.test("svc api streams 50 answers at once, complete and in order, while documents come in", async () => {
  await using dir = await tmpDir();
  await using svc = await startSvc(dir.path);
  const client = await Client.login(svc.base);
  const document = await client.upload("load.md", DOCUMENT);
  const chats = await Promise.all(
    Array.from({ length: CHATS }, (_, n) => client.createChat(`load ${n}`, [document])),
  );
  await Promise.all(chats.map((chat) => client.call("POST", `/chats/${chat.id}/prepare`)));
  const health = await sampleHealth(svc.base);
  const { stats, prepared, failures, streaming } = await generateLoad(
    svc.base,
    chats.map((c) => c.id),
  );
  const { failures: unhealthy, spans } = await health.stop();

  assert.deepEqual(stats.problems, [], "every stream complete, in order, without an error");
  assert.equal(stats.answers, CHATS * ROUNDS);
  assert.deepEqual(failures, [], "every upload and prepare beside the streams succeeded");
  assert.ok(prepared >= 1, "documents were uploaded and chats prepared during the load");
  assert.deepEqual(unhealthy, [], "/health always answered");
  // Asked after the streams began and answered before they ended: it did not wait for them.
  const meanwhile =
    spans.filter(({ asked, answered }) => asked >= streaming.from && answered <= streaming.to)
      .length;
  assert.ok(meanwhile > 0, "/health answered while the streams were in flight");
  console.log(
    `${stats.answers} answers, ${stats.chunks} chunks in ${stats.seconds.toFixed(1)} s; ` +
      `${prepared} documents uploaded and prepared beside; /health answered ${meanwhile} ` +
      `times meanwhile`,
  );

  // Every answer was stored whole.
  const stored: { messages: { role: string; content: string }[] }[] = await Promise.all(
    chats.map((chat) => client.call("GET", `/chats/${chat.id}`)),
  );
  for (const chat of stored) {
    const answers = chat.messages.filter((m) => m.role === "assistant");
    assert.equal(answers.length, ROUNDS);
    assert.ok(answers.every((m) => m.content.split(" ").length === CHUNKS + 1));
  }
  assert.equal((await svc.stop("SIGTERM")).code, 0, svc.stderr());
  checkDatabase(join(svc.root, "svc.db"));
});
