/**
 * Hostile text against a real `svc api` process: a path of 64,000 letters, a username of 100,000
 * letters at `POST /token` until the login limit answers 429, chat parameters of 900 KB, and a
 * provider that echoes its request, key and all. Each attack, repeated by a few clients at once,
 * is answered with a short sentence that holds no secret, in its response and in the process's
 * log, while another user's requests are answered; the process lives on.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { hashPassword } from "../../server/auth/password_hash.ts";
import { openDatabase } from "../../server/database/mod.ts";
import { freePort, startProcess } from "../_process.ts";
import { tmpDir } from "../test_utils.ts";
import { Client, type Svc, waitFor, writeComponents } from "./_server.ts";
import { integration } from "../_tier.ts";

/** The key of the provider, which no answer and no log line may show. */
const KEY = "sk-hostile-text-key-5151";

/** The user and password of the provider's URL, which fetch sends as `Basic` and base64. */
const USER_INFO = "ada:hunter2-userinfo";

/** A sentence of the document that only the request to the provider holds. */
const SOURCE = "The loom of the analytical engine weaves algebraic patterns.";

/** What an attack got back: its status and the message of its error body. */
interface Answer {
  status: number;
  message: string;
}

/**
 * A provider that echoes each request it is sent, as a 400: headers (the key among them) and
 * body, in its error message, or as text.
 */
function echoingProvider(): Deno.HttpServer<Deno.NetAddr> {
  let count = 0;
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    if (request.method === "GET") return new Response("ok");
    const headers = [...request.headers].map(([name, value]) => `${name}: ${value}`).join("\n");
    const echo = `${request.method} ${request.url}\n${headers}\n\n${await request.text()}`;
    return count++ % 2 === 0
      ? Response.json({ error: { message: `Bad request: ${echo}` } }, { status: 400 })
      : new Response(echo, { status: 400 });
  });
}

/**
 * Starts `svc api` with the test components and an OpenAI-compatible assistant pointed at
 * `provider`, its key and its user information in the environment, and accounts for `users`
 * (each user's password its name); only 3 failed logins for a user, many for an address, so that
 * the user's limit answers.
 */
async function startSvc(dir: string, provider: string, users: string[]): Promise<Svc> {
  const port = freePort();
  await writeComponents(dir);
  const database = await openDatabase(`sqlite:///${dir}/root/svc.db`, { localRoot: dir });
  try {
    for (const user of users) {
      await database.addAccount(user, await hashPassword(user), Date.now() / 1000);
    }
  } finally {
    await database.close();
  }
  const config = join(dir, "svc.toml");
  await Deno.writeTextFile(
    config,
    [
      'local_root = "root"',
      'authentication = "svc.deploy.PasswordAuthentication"',
      'source_storages = ["./slow.ts#SlowStorage"]',
      'assistants = ["./slow.ts#Slow", "svc.assistants.OpenAICompatible"]',
      "[api]",
      'hostname = "127.0.0.1"',
      `port = ${port}`,
      "",
    ].join("\n"),
  );
  const base = `http://127.0.0.1:${port}`;
  const svc = await startProcess(["api", "-c", config], {
    health: base,
    env: {
      SVC_OPENAI_COMPATIBLE_URL: provider.replace("://", `://${USER_INFO}@`) + "/v1",
      SVC_OPENAI_COMPATIBLE_MODEL: "echo",
      SVC_OPENAI_COMPATIBLE_API_KEY: KEY,
      SVC_API_LOGIN_FAILURES_PER_USER: "3",
      SVC_API_LOGIN_FAILURES_PER_ADDRESS: "10000",
    },
  });
  return Object.assign(svc, { base, root: join(dir, "root") });
}

/**
 * Runs `attack` from three clients at once, each again as soon as it is answered, and meanwhile
 * has `other` ask for `/health` and its chats three times: each of these must be answered while
 * attacks are still waiting for their answers. Returns what the attacks got.
 */
async function underAttack(attack: () => Promise<Response>, other: Client): Promise<Answer[]> {
  const answers: Answer[] = [];
  let attacking = true;
  let waiting = 0;
  const attackers = Array.from({ length: 3 }, async () => {
    while (attacking) {
      waiting++;
      try {
        const response = await attack();
        const body = await response.json();
        answers.push({ status: response.status, message: body.error?.message });
      } finally {
        waiting--;
      }
    }
  });
  await waitFor("the first answers to the attack", () => answers.length >= 3 || undefined);
  for (let i = 0; i < 3; i++) {
    const health = await fetch(`${other.base}/health`);
    assert.deepEqual(await health.json(), { status: "ok" });
    assert.ok(waiting > 0, "/health was answered while attacks waited for theirs");
    const chats = await other.request("GET", "/chats");
    assert.equal(chats.status, 200, await chats.clone().text());
    assert.ok(Array.isArray(await chats.json()));
    assert.ok(waiting > 0, "GET /chats was answered while attacks waited for theirs");
  }
  attacking = false;
  await Promise.all(attackers);
  return answers;
}

/** Asserts that each answer is a short sentence, and returns the distinct messages. */
function shortSentences(answers: Answer[], statuses: number[]): string[] {
  for (const { status, message } of answers) {
    assert.ok(statuses.includes(status), `${status}: ${message}`);
    assert.equal(typeof message, "string");
    assert.ok(message.length > 0 && message.length < 600, `${message.length} characters`);
  }
  return [...new Set(answers.map((answer) => answer.message))];
}

integration.test("hostile text is answered with short sentences without secrets, and other users meanwhile", async (t) => {
  await using provider = echoingProvider();
  await using dir = await tmpDir();
  const url = `http://127.0.0.1:${provider.addr.port}`;
  await using svc = await startSvc(dir.path, url, ["grace", "eve"]);
  const grace = await Client.login(svc.base, "grace");
  const eve = await Client.login(svc.base, "eve");

  await t.step(
    "GET / and 64,000 letters: a 404 that quotes 141 characters of the path",
    async () => {
      const letters = "A".repeat(64_000);
      const answers = await underAttack(() => fetch(`${svc.base}/${letters}`), grace);
      assert.deepEqual(shortSentences(answers, [404]), [
        `There is no route /${"A".repeat(99)}…${"A".repeat(40)}`,
      ]);
    },
  );

  await t.step(
    "a username of 100,000 letters at POST /token: a 401 that quotes none of it",
    async () => {
      const username = "D".repeat(100_000);
      const answers = await underAttack(
        () =>
          fetch(`${svc.base}/token`, {
            method: "POST",
            body: new URLSearchParams({ username, password: "wrong" }),
          }),
        grace,
      );
      // No account can have such a name: it is refused before it is counted or read further.
      assert.deepEqual(shortSentences(answers, [401]), ["The username or password is wrong"]);
    },
  );

  await t.step(
    "a username of 1,000 letters at POST /token: 401, then a 429 that quotes 141 of them",
    async () => {
      const username = "B".repeat(1_000);
      const answers = await underAttack(
        () =>
          fetch(`${svc.base}/token`, {
            method: "POST",
            body: new URLSearchParams({ username, password: "wrong" }),
          }),
        grace,
      );
      const messages = shortSentences(answers, [401, 429]);
      assert.ok(answers.some((answer) => answer.status === 429), messages.join("\n"));
      for (const message of messages) assert.ok(!message.includes("B".repeat(141)), message);
    },
  );

  await t.step(
    "chat parameters of 900 KB: a 422 that quotes excerpts of the name and value",
    async () => {
      const value = "C".repeat(900_000);
      const answers = await underAttack(
        () =>
          eve.request("POST", "/chats", {
            name: "c",
            source_storage: "Test/SlowStorage",
            assistant: "Test/Numbered",
            params: { chunks: value },
            documents: [],
          }),
        grace,
      );
      const [message, ...others] = shortSentences(answers, [422]);
      assert.deepEqual(others, []);
      assert.ok(message!.includes(`- chunks: integer = "${"C".repeat(99)}…${"C".repeat(39)}"`));
    },
  );

  await t.step(
    "a provider that echoes its request: a 502 without the key, the credentials or the request",
    async () => {
      const document = await eve.upload("loom.md", `# Loom\n\n${SOURCE}\n`);
      const chat = await eve.call("POST", "/chats", {
        name: "c",
        source_storage: "Test/SlowStorage",
        assistant: "OpenAICompatible/echo",
        params: {},
        documents: [document],
      });
      await eve.call("POST", `/chats/${chat.id}/prepare`);
      const answers = await underAttack(
        () => eve.request("POST", `/chats/${chat.id}/answer`, { prompt: "What weaves patterns?" }),
        grace,
      );
      const messages = shortSentences(answers, [502]);
      assert.ok(messages.every((message) => message.startsWith("OpenAICompatible answered 400")));
      const basic = btoa(USER_INFO);
      const log = svc.stderr();
      assert.ok(log.includes("OpenAICompatible answered 400"), "the 502s are logged");
      for (const seen of [...messages, log]) {
        for (const secret of [KEY, basic, "hunter2-userinfo", SOURCE, "analytical engine"]) {
          assert.ok(!seen.includes(secret), `"${secret}" shows in: ${seen.slice(0, 2000)}`);
        }
      }
    },
  );

  // The process lives on, and no request of the attacks was a bug.
  assert.deepEqual(await (await fetch(`${svc.base}/health`)).json(), { status: "ok" });
  const failures = svc.stderr().split("\n").filter((line) => line.includes('"status":500'));
  assert.deepEqual(failures, []);
});
