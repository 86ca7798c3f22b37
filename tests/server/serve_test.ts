/**
 * `serveApi` stopping on SIGTERM, through the real `svc api` process: answers
 * in flight finish within `SVC_SHUTDOWN_TIMEOUT`, or are cut off at it.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CUT_OFF_MESSAGE } from "../../server/shutdown.ts";
import { numbered } from "../rely/_components.ts";
import { checkDatabase } from "../rely/_database.ts";
import { Client, lines, startSvc, type Svc, waitFor } from "../rely/_server.ts";
import { tmpDir } from "../test_utils.ts";
import { integration } from "../_tier.ts";

/** A prepared chat of the test assistant with these parameters, and a streamed answer under way. */
async function streaming(svc: Svc, params: { chunks: number; delay_ms: number }) {
  const client = await Client.login(svc.base);
  const document = await client.upload("notes.md", "# Notes\n");
  const chat = await client.createChat("shutdown", [document], params);
  await client.call("POST", `/chats/${chat.id}/prepare`);
  const received: { content?: string; error?: { message: string } }[] = [];
  const reading = (async () => {
    for await (const line of lines(await client.ask(chat.id, "keep me"))) received.push(line);
  })();
  await waitFor("the first line", () => received.length > 0 || undefined);
  return { received, reading };
}

/** Sends SIGTERM and returns the exit status and how long the process took to end. */
async function terminate(svc: Svc) {
  const start = performance.now();
  const status = await svc.stop("SIGTERM");
  return { status, seconds: (performance.now() - start) / 1000 };
}

integration.test("svc api on SIGTERM refuses new connections, lets a stream finish, and exits 0", async () => {
  await using dir = await tmpDir();
  await using svc = await startSvc(dir.path);
  const { received, reading } = await streaming(svc, { chunks: 20, delay_ms: 50 });

  const stopping = terminate(svc);
  await waitFor("the server to stop listening", async () => {
    try {
      const response = await fetch(`${svc.base}/health`);
      await response.body?.cancel();
      return undefined;
    } catch {
      return true;
    }
  });
  await reading;
  const { status } = await stopping;
  assert.equal(status.code, 0, svc.stderr());
  assert.equal(received.map((line) => line.content).join(""), numbered(20), "the whole answer");
  assert.ok(received.every((line) => line.error === undefined));
  assert.match(svc.stderr(), /svc API stopping: waiting up to 10 s[^]*svc API stopped/);
  assert.doesNotMatch(svc.stderr(), /Stopped waiting/, "it ended once the stream was done");
  const { messages } = checkDatabase(join(svc.root, "svc.db"));
  assert.equal(messages, 3, "the welcome, the prompt and the whole answer are stored");
});

integration.test("svc api on SIGTERM cuts off a stream at SVC_SHUTDOWN_TIMEOUT, keeps the prompt, and exits 0", async () => {
  await using dir = await tmpDir();
  await using svc = await startSvc(dir.path, { env: { SVC_SHUTDOWN_TIMEOUT: "1" } });
  const { received, reading } = await streaming(svc, { chunks: 400, delay_ms: 50 });

  const { status, seconds } = await terminate(svc);
  await reading;
  assert.equal(status.code, 0, svc.stderr());
  // It waited the 1 s first; that it stopped waiting then, not at the answer's end, the log and
  // the cut stream show.
  assert.ok(seconds >= 0.9, `it waited for the stream (${seconds.toFixed(1)} s)`);
  const last = received.at(-1)!;
  assert.deepEqual(last, { error: { message: CUT_OFF_MESSAGE } }, "the stream ends with an error");
  const chunks = received.slice(0, -1).map((line) => line.content);
  assert.ok(chunks.length < 400, "the answer was cut before its end");
  assert.equal(chunks.join(""), numbered(chunks.length), "whole lines, in order, before it");
  assert.match(svc.stderr(), /Stopped waiting after 1 s \(SVC_SHUTDOWN_TIMEOUT\): cutting off 1 /);
  const { messages } = checkDatabase(join(svc.root, "svc.db"));
  assert.equal(messages, 3, "the welcome, the prompt and the answer as far as it was cut off");
});
