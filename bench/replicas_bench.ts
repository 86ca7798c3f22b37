/**
 * Replicas: the throughput of answers and of `GET /chats` with one and two
 * `svc api` replicas on one PostgreSQL database, against one `svc api` on
 * its libSQL file, in the same run, with the same test components
 * (`tests/rely/_components.ts`: the demo storage and an assistant streaming
 * numbered chunks without pauses) and the same clients. Each figure is
 * requests per second over a fixed time with a fixed number of clients, each
 * a user of its own, the clients spread over the replicas in turn; the ratio
 * is to one replica on libSQL. The file prints one Markdown table; it
 * registers no `Deno.bench`, since each figure is a whole run of clients
 * rather than one timed call.
 *
 * Run with `deno task bench`, or alone with
 * `deno bench -A --lock=deno.dev.lock --frozen bench/replicas_bench.ts`.
 * @module
 */
import { join } from "node:path";
import { findPostgres, startPostgres } from "../tests/_postgres.ts";
import { startReplica } from "../tests/rely/_replicas.ts";
import { Client, startSvc, type Svc } from "../tests/rely/_server.ts";

/** Clients at once, each a user with a chat of its own. */
const CLIENTS = 8;
/** How long each throughput is measured, in milliseconds. */
const MEASURE_MS = 4000;
/** The chats of the user whose list `GET /chats` reads, and the questions asked in each. */
const LISTED_CHATS = 20;
const QUESTIONS = 3;
/** The chunks of each answer. */
const CHUNKS = 20;

interface SetUp extends AsyncDisposable {
  name: string;
  /** One client per user, each on the replica it was given in turn. */
  clients: { client: Client; chat: string }[];
  /** The user with many chats, on each replica. */
  lister: Client[];
}

const dir = await Deno.makeTempDir({ prefix: "svc-replicas-bench-" });

/** Users, their chats, and a user with many answered chats, on the replicas. */
async function populate(name: string, replicas: Svc[], stop: () => Promise<void>): Promise<SetUp> {
  const at = (i: number) => replicas[i % replicas.length]!.base;
  const clients = [];
  for (let i = 0; i < CLIENTS; i++) {
    const client = await Client.login(at(i), `user${i}`);
    const document = await client.upload("notes.md", `# Notes ${i}\n\nWhat the bench reads.\n`);
    const chat = await client.createChat("bench", [document], { chunks: CHUNKS, delay_ms: 0 });
    await client.call("POST", `/chats/${chat.id}/prepare`);
    clients.push({ client, chat: chat.id });
  }
  const lister = await Client.login(at(0), "lister");
  const document = await lister.upload("notes.md", "# Notes\n\nListed many times.\n");
  for (let c = 0; c < LISTED_CHATS; c++) {
    const chat = await lister.createChat(`chat ${c}`, [document], { chunks: CHUNKS, delay_ms: 0 });
    await lister.call("POST", `/chats/${chat.id}/prepare`);
    for (let q = 0; q < QUESTIONS; q++) await answer(lister, chat.id);
  }
  return {
    name,
    clients,
    lister: replicas.map((replica) => lister.at(replica.base)),
    [Symbol.asyncDispose]: stop,
  };
}

/** One whole answer, as JSON. */
async function answer(client: Client, chat: string): Promise<void> {
  await client.call("POST", `/chats/${chat}/answer`, { prompt: "what do the notes say?" });
}

/** One `GET /chats`, read whole. */
async function list(client: Client): Promise<void> {
  const response = await client.request("GET", "/chats");
  if (!response.ok) throw new Error(`GET /chats: ${response.status}`);
  await response.arrayBuffer();
}

/** Requests per second of `CLIENTS` clients, each running `work(i)` in a loop for `MEASURE_MS`. */
async function throughput(work: (i: number) => Promise<void>): Promise<number> {
  let done = 0;
  const end = performance.now() + MEASURE_MS;
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, async (_, i) => {
    while (performance.now() < end) {
      await work(i);
      done++;
    }
  }));
  return done / ((performance.now() - started) / 1000);
}

async function libsqlSetUp(): Promise<SetUp> {
  await Deno.mkdir(join(dir, "libsql"));
  const svc = await startSvc(join(dir, "libsql"));
  return await populate("1 replica, libSQL file", [svc], async () => void await svc.stop());
}

async function postgresSetUp(count: number, url: string): Promise<SetUp> {
  const replicas: Svc[] = [];
  const stop = async () => void await Promise.all(replicas.map((replica) => replica.stop()));
  try {
    for (let i = 0; i < count; i++) {
      replicas.push(await startReplica(join(dir, `pg${count}-${i}`), { databaseUrl: url }));
    }
    const name = `${count} ${count === 1 ? "replica" : "replicas"}, one PostgreSQL`;
    return await populate(name, replicas, stop);
  } catch (error) {
    await stop();
    throw error;
  }
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

if (findPostgres() === undefined) {
  console.warn("bench/replicas_bench.ts needs PostgreSQL: apt-get install postgresql-15");
} else {
  await using cluster = await startPostgres();
  const rows: { name: string; answers: number; lists: number }[] = [];
  const setUps: SetUp[] = [];
  try {
    setUps.push(await libsqlSetUp());
    for (const count of [1, 2]) {
      setUps.push(await postgresSetUp(count, (await cluster.database()).url));
    }
    for (const setUp of setUps) {
      const answers = await throughput((i) =>
        answer(setUp.clients[i]!.client, setUp.clients[i]!.chat)
      );
      const lists = await throughput((i) => list(setUp.lister[i % setUp.lister.length]!));
      rows.push({ name: setUp.name, answers, lists });
    }
    const [reference] = rows;
    const lines = [
      `${CLIENTS} clients for ${MEASURE_MS / 1000} s each, on ${machine()}, PostgreSQL ` +
      `${cluster.version} (fsync off) on the same machine; ratio = to one replica on libSQL.`,
      "",
      `| set up | answers/s (${CHUNKS} chunks) | ratio | \`GET /chats\`/s (${LISTED_CHATS} chats of ` +
      `${1 + 2 * QUESTIONS} messages) | ratio |`,
      "|---|---|---|---|---|",
      ...rows.map((row) =>
        `| ${row.name} | ${row.answers.toFixed(0)} | ${
          (row.answers / reference!.answers).toFixed(2)
        } | ${row.lists.toFixed(0)} | ${(row.lists / reference!.lists).toFixed(2)} |`
      ),
    ];
    console.log(`\n${lines.join("\n")}\n`);
  } finally {
    for (const setUp of setUps) await setUp[Symbol.asyncDispose]();
  }
}

globalThis.addEventListener("unload", () => {
  Deno.removeSync(dir, { recursive: true });
});
