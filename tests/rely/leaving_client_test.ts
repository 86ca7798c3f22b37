/**
 * A client that leaves a streamed answer, against a real `svc api` process
 * whose assistant calls a slow OpenAI-compatible provider: the answer goes on
 * without it, whether the client left before the provider answered, before
 * its first token or after it. The provider's call ends when the answer does:
 * complete once the provider finishes, or at once when the user stops it
 * (`POST /chats/{id}/stop`), long before the assistant's own timeout.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { within } from "../assistants/_fake_server.ts";
import { freePort, startProcess } from "../_process.ts";
import { svcToml, tmpDir } from "../test_utils.ts";
import { failures } from "./_checks.ts";
import { rawRequest, writeAll } from "./_raw_http.ts";
import { Client, type Svc, waitFor } from "./_server.ts";
import { integration } from "../_tier.ts";

/** How far the provider gets before it holds. */
type Stage = "before the provider answers" | "before the first token" | "after the first token";

/** A call to the provider, and when svc closed its connection. */
interface Call {
  prompt: string;
  /** Settles when svc closes the connection. */
  closed: Promise<void>;
  /** Sends the rest of the answer, ", then the rest.", and ends the stream. */
  finish(): Promise<void>;
}

/**
 * An OpenAI-compatible provider on raw TCP that streams up to `stage` and then
 * holds, so that only svc closing the connection ends a call. TCP, not
 * `Deno.serve`, so that the close is seen at any moment, headers sent or not.
 */
class HoldingProvider implements AsyncDisposable {
  stage: Stage = "before the first token";
  readonly calls: Call[] = [];
  readonly #listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  readonly #connections = new Set<Deno.Conn>();
  readonly #called: ((call: Call) => void)[] = [];
  readonly #accepting: Promise<void>;

  constructor() {
    this.#accepting = this.#accept();
  }

  get url(): string {
    return `http://127.0.0.1:${this.#listener.addr.port}/v1`;
  }

  /** The next call to the provider, once it has its whole request. */
  nextCall(): Promise<Call> {
    return new Promise((resolve) => this.#called.push(resolve));
  }

  async #accept(): Promise<void> {
    try {
      for await (const connection of this.#listener) {
        this.#connections.add(connection);
        this.#serve(connection).catch(() => {}).finally(() => {
          this.#connections.delete(connection);
          try {
            connection.close();
          } catch {
            // closed already
          }
        });
      }
    } catch {
      // the listener was closed
    }
  }

  async #serve(connection: Deno.Conn): Promise<void> {
    const { head, body } = await readRequest(connection);
    const encoder = new TextEncoder();
    if (!head.startsWith("POST /v1/chat/completions ")) {
      // svc check's probe of the server, or anything else.
      await writeAll(
        connection,
        encoder.encode("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
      );
      return;
    }
    const messages = JSON.parse(body).messages as { content: string }[];
    let closed!: () => void;
    const event = (delta: Record<string, string>, finish: string | null = null) => {
      const data = `data: ${
        JSON.stringify({
          id: "held",
          object: "chat.completion.chunk",
          created: 0,
          model: "held",
          choices: [{ index: 0, delta, finish_reason: finish }],
        })
      }\n\n`;
      return `${encoder.encode(data).length.toString(16)}\r\n${data}\r\n`;
    };
    const call: Call = {
      prompt: messages.at(-1)!.content,
      closed: new Promise((resolve) => closed = resolve),
      finish: async () => {
        const done = "data: [DONE]\n\n";
        const rest = event({ content: ", then the rest." }) + event({}, "stop") +
          `${done.length.toString(16)}\r\n${done}\r\n0\r\n\r\n`;
        await writeAll(connection, encoder.encode(rest));
      },
    };
    if (this.stage !== "before the provider answers") {
      let text = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n" +
        "Transfer-Encoding: chunked\r\n\r\n";
      if (this.stage === "after the first token") {
        text += event({ role: "assistant", content: "First" });
      }
      await writeAll(connection, encoder.encode(text));
    }
    this.calls.push(call);
    this.#called.shift()?.(call);
    // Holds: only svc ends the call, by closing the connection.
    const buffer = new Uint8Array(1024);
    try {
      while (await connection.read(buffer) !== null) {
        // svc sends nothing more; whatever comes is ignored
      }
    } catch {
      // reset by svc: closed as well
    }
    closed();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#listener.close();
    for (const connection of this.#connections) {
      try {
        connection.close();
      } catch {
        // closed already
      }
    }
    await this.#accepting;
  }
}

/** A request's head and body, read up to its `Content-Length`. */
async function readRequest(connection: Deno.Conn): Promise<{ head: string; body: string }> {
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(16 * 1024);
  let text = "";
  while (true) {
    const n = await connection.read(buffer);
    if (n === null) throw new Error(`The request ended early: ${text}`);
    text += decoder.decode(buffer.subarray(0, n), { stream: true });
    const end = text.indexOf("\r\n\r\n");
    if (end < 0) continue;
    const head = text.slice(0, end);
    const length = Number(/^content-length:\s*(\d+)/im.exec(head)?.[1] ?? 0);
    const body = text.slice(end + 4);
    if (new TextEncoder().encode(body).length >= length) return { head, body };
  }
}

/** `svc api` with the demo source storage and the OpenAI-compatible assistant at `provider`. */
async function startWithProvider(dir: string, provider: HoldingProvider): Promise<Svc> {
  const port = freePort();
  const config = join(dir, "svc.toml");
  await Deno.writeTextFile(
    config,
    svcToml({
      sourceStorage: "svc.source_storages.SvcDemoSourceStorage",
      assistant: "svc.assistants.OpenAICompatible",
      port,
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  const svc = await startProcess(["api", "-c", config], {
    health: base,
    env: {
      SVC_OPENAI_COMPATIBLE_URL: provider.url,
      SVC_OPENAI_COMPATIBLE_MODEL: "held",
      // Far beyond the guard below: a closed call cannot be the timeout's doing.
      SVC_ASSISTANT_TIMEOUT: "600",
    },
  });
  return Object.assign(svc, { base, root: join(dir, "root") });
}

const STAGES: Stage[] = [
  "before the provider answers",
  "before the first token",
  "after the first token",
];

/** Sends a streamed question on a connection of its own, which the test closes to leave. */
async function ask(port: number, bearer: string, chatId: string, prompt: string) {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  const request = rawRequest("POST", `/chats/${chatId}/answer`, {
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: JSON.stringify({ prompt, stream: true }),
  });
  await writeAll(connection, request.bytes);
  return connection;
}

integration.test("a client that leaves a streamed answer leaves it running until its user stops it, before or after the first token, or until it is complete", async () => {
  await using dir = await tmpDir();
  await using provider = new HoldingProvider();
  await using svc = await startWithProvider(dir.path, provider);
  const port = Number(new URL(svc.base).port);
  const client = await Client.login(svc.base);
  const bearer = client.token;
  const document = await client.upload("notes.md", "# Notes\n\nThe provider holds.\n");
  const chat = await client.call("POST", "/chats", {
    name: "Leaving",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "OpenAICompatible/held",
    params: {},
    documents: [document],
  });
  await client.call("POST", `/chats/${chat.id}/prepare`);

  for (const stage of STAGES) {
    provider.stage = stage;
    const prompt = `Leaving ${stage}?`;
    const called = provider.nextCall();
    const connection = await ask(port, bearer, chat.id, prompt);
    const call = await within(called, 30_000, `the provider's call (${stage})`);
    assert.match(call.prompt, new RegExp(prompt.replace("?", "\\?")));
    if (stage === "after the first token") {
      // The client has the first line, with the provider's first token, before it leaves.
      const first = await readUntil(connection, "First");
      assert.match(first, /"content":"First"/);
    }
    let ended = false;
    call.closed.then(() => ended = true);
    connection.close();
    // The answer still runs with nobody reading it, shown as streaming; only the user's stop
    // ends it.
    const shown = (await client.call("GET", `/chats/${chat.id}`)).messages.at(-1);
    assert.deepEqual([shown.role, shown.status], ["assistant", "streaming"], stage);
    assert.equal(ended, false, `the call holds after the client left (${stage})`);
    assert.deepEqual(await client.call("POST", `/chats/${chat.id}/stop`), { stopped: 1 });
    // Only a guard against a hang: the assistant's own timeout is 600 s.
    await within(call.closed, 120_000, `svc closing the provider's call once stopped ${stage}`);
  }

  // Left after the first token, then finished by the provider: stored whole.
  provider.stage = "after the first token";
  const called = provider.nextCall();
  const connection = await ask(port, bearer, chat.id, "Left for good?");
  const call = await within(called, 30_000, "the provider's last call");
  await readUntil(connection, "First");
  connection.close();
  await call.finish();
  const whole = await waitFor("the whole answer in GET /chats/{id}", async () => {
    const last = (await client.call("GET", `/chats/${chat.id}`)).messages.at(-1);
    return last.content === "First, then the rest." && last.status === undefined ? last : undefined;
  });
  assert.equal(whole.role, "assistant");

  // The prompts were kept, each with its answer as far as it was written, the stopped ones
  // marked so; the chat goes on.
  const stored = await client.call("GET", `/chats/${chat.id}`);
  type Stored = { role: string; content: string; status?: string };
  const asked = stored.messages.filter((message: Stored) => message.role === "user");
  assert.deepEqual(
    asked.map((message: Stored) => message.content),
    [...STAGES.map((stage) => `Leaving ${stage}?`), "Left for good?"],
  );
  const answers = stored.messages.filter((message: Stored) => message.role === "assistant");
  assert.deepEqual(
    answers.map((message: Stored) => message.status),
    [...STAGES.map(() => "stopped"), undefined],
  );
  assert.equal(answers.at(-2).content, "First", "the stopped answer as far as it was written");
  assert.equal(provider.calls.length, STAGES.length + 1, "no call was made again");
  assert.deepEqual(failures(svc), []);
  assert.equal((await fetch(`${svc.base}/health`)).status, 200);
  // Watching for the client to leave costs no line outside the JSON log (Deno warns of
  // request.signal's legacy abort unless deno.json opts out of it).
  const plain = svc.stderr().split("\n").filter((line) => line !== "" && !isJson(line));
  assert.deepEqual(plain, []);
});

function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

/** Reads from the connection until the text holds `marker`. */
async function readUntil(connection: Deno.Conn, marker: string): Promise<string> {
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(4096);
  let text = "";
  while (!text.includes(marker)) {
    const n = await connection.read(buffer);
    if (n === null) {
      throw new Error(`The connection closed before ${JSON.stringify(marker)}: ${text}`);
    }
    text += decoder.decode(buffer.subarray(0, n), { stream: true });
  }
  return text;
}
