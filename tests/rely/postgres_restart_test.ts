/**
 * Two `svc api` replicas on one PostgreSQL that an operator restarts six
 * times (`pg_ctl restart -m fast`) under a steady load of streamed answers,
 * chat lists and new chats: both replicas live through every restart, each
 * request is answered or refused with a 503 sentence, and each replica
 * answers again after each restart. One replica loads the `postgres` package
 * from `node_modules/`, the other from Deno's cache, as `deno task svc` does.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { LOCK_FLAGS } from "../_process.ts";
import { postgresTest } from "../_postgres.ts";
import { tmpDir } from "../test_utils.ts";
import { numbered } from "./_components.ts";
import { startReplica } from "./_replicas.ts";
import { Client, type Svc, waitFor } from "./_server.ts";

const RESTARTS = 6;
/** The requests each replica answers whole after a restart before the next one. */
const ANSWERED_BETWEEN = 3;
const WORKERS_PER_REPLICA = 4;
const CHUNKS = 5;

/** What one replica's load saw. */
interface Tally {
  answered: number;
  refused: number;
  /** What was neither answered whole nor refused with a 503 sentence. */
  problems: string[];
}

/** Whether an error message is a sentence of svc's rather than a bug's or nothing. */
function isSentence(message: unknown): boolean {
  return typeof message === "string" && message.length > 0 &&
    !message.startsWith("Something went wrong");
}

/** One request of a worker's mix, sorted into `tally`. */
async function oneRequest(client: Client, chatId: string, turn: number, tally: Tally) {
  const kind = ["answer", "list", "rename"][turn % 3]!;
  let response: Response;
  try {
    response = kind === "answer"
      ? await client.ask(chatId, `question ${turn}`)
      : kind === "list"
      ? await client.request("GET", "/chats?messages=false")
      : await client.request("PATCH", `/chats/${chatId}`, { name: `load ${turn}` });
  } catch (error) {
    tally.problems.push(`${kind}: no answer (${(error as Error).message})`);
    return;
  }
  const text = await response.text().catch((error) => `(cut: ${error.message})`);
  if (response.status === 503 && isSentence(JSON.parse(text).error?.message)) {
    tally.refused++;
    return;
  }
  if (response.status !== 200) {
    tally.problems.push(`${kind}: ${response.status} ${text}`);
    return;
  }
  if (kind !== "answer") {
    tally.answered++;
    return;
  }
  const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line));
  const last = lines.at(-1);
  if (last.error !== undefined) {
    // Cut by the restart after its first line: it ends with the sentence that says why.
    if (isSentence(last.error.message)) tally.refused++;
    else tally.problems.push(`answer: ${text}`);
  } else if (lines.map((line) => line.content).join("") === numbered(CHUNKS)) {
    tally.answered++;
  } else {
    tally.problems.push(`answer: incomplete without an error line: ${text}`);
  }
}

postgresTest(
  "two replicas live through six fast restarts of PostgreSQL under load, each request answered or refused with a 503 sentence",
  async (database, cluster) => {
    await using dir = await tmpDir();
    const started: Svc[] = [];
    try {
      started.push(await startReplica(join(dir.path, "a"), { databaseUrl: database.url }));
      started.push(
        await startReplica(join(dir.path, "b"), {
          databaseUrl: database.url,
          run: ["run", "-A", "--node-modules-dir=none", ...LOCK_FLAGS],
        }),
      );
      const deaths: string[] = [];
      for (const [i, replica] of started.entries()) {
        replica.child.status.then((status) => deaths.push(`replica ${i}: ${status.code}`));
      }
      const clients = [await Client.login(started[0]!.base)];
      clients.push(clients[0]!.at(started[1]!.base));
      const chat = await clients[0]!.createChat("load", [], { chunks: CHUNKS, delay_ms: 1 });
      await clients[0]!.call("POST", `/chats/${chat.id}/prepare`);

      const tallies: Tally[] = clients.map(() => ({ answered: 0, refused: 0, problems: [] }));
      let running = true;
      const workers = clients.flatMap((client, i) =>
        Array.from({ length: WORKERS_PER_REPLICA }, async (_, worker) => {
          for (let turn = worker; running; turn += WORKERS_PER_REPLICA) {
            await oneRequest(client, chat.id, turn, tallies[i]!);
          }
        })
      );
      try {
        for (let restart = 0; restart < RESTARTS; restart++) {
          const before = tallies.map((tally) => tally.answered);
          await cluster.restart();
          // Each replica's pool connects again: it answers whole once more.
          await waitFor(
            `both replicas to answer after restart ${restart + 1}`,
            () =>
              tallies.every((tally, i) => tally.answered >= before[i]! + ANSWERED_BETWEEN) ||
              deaths.length > 0 || undefined,
          );
        }
      } finally {
        running = false;
        await Promise.all(workers);
      }
      assert.deepEqual(deaths, [], started.map((replica) => replica.stderr()).join("\n"));
      assert.deepEqual(tallies.flatMap((tally) => tally.problems), []);
      for (const replica of started) {
        assert.doesNotMatch(replica.stderr(), /Uncaught/);
        const health = await fetch(`${replica.base}/health`);
        assert.equal(health.status, 200);
        await health.body?.cancel();
      }
    } finally {
      await Promise.all(started.map((replica) => replica.stop("SIGKILL")));
    }
  },
);
