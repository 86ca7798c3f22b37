/**
 * Structured logs: one JSON line per request with its request id, user, route pattern, status
 * and duration; start-up notices, warnings and errors as JSON lines too.
 * @module
 */
import assert from "node:assert/strict";
import { Assistant } from "../../components/core/component.ts";
import { jsonLog, logLine } from "../../server/log.ts";
import { Config } from "../../server/config.ts";
import { serveApi } from "../../server/serve.ts";
import { freePort } from "../_process.ts";
import { testApi } from "../server/api/_api.ts";
import { tmpDir } from "../test_utils.ts";
import { preparedChat } from "./_hostile.ts";

interface Line {
  time: string;
  level: string;
  message: string;
  request_id?: string;
  user?: string;
  method?: string;
  route?: string | null;
  status?: number;
  duration_ms?: number;
  stack?: string;
}

function parse(lines: string[]): Line[] {
  return lines.map((line) => {
    const parsed = JSON.parse(line);
    assert.ok(!Number.isNaN(Date.parse(parsed.time)), line);
    assert.ok(["info", "warn", "error"].includes(parsed.level), line);
    assert.equal(typeof parsed.message, "string", line);
    return parsed;
  });
}

class Buggy extends Assistant {
  override answer(): never {
    throw new TypeError("undefined is not a function");
  }
}

Deno.test("every request logs one JSON line with its id, user, route pattern, status and duration", async () => {
  await using api = await testApi({ assistants: [new Buggy()] });
  const { chat } = await preparedChat(api, { assistant: "Buggy" });
  api.logs.length = 0;

  const responses = [
    await api.app.request("http://svc.test/health"),
    await api.call("GET", `/chats/${chat.id}`),
    await api.call("GET", "/nowhere"),
    await api.call("POST", `/chats/${chat.id}/answer`, { prompt: "x".repeat(2 * 1024 * 1024) }),
    await api.call("POST", `/chats/${chat.id}/answer`, { prompt: "?" }),
  ];
  const requests = parse(api.logs).filter((line) => line.duration_ms !== undefined);
  assert.equal(requests.length, responses.length);
  const expected = [
    { user: undefined, method: "GET", route: "/health", status: 200, level: "info" },
    { user: "ada", method: "GET", route: "/chats/:id", status: 200, level: "info" },
    { user: undefined, method: "GET", route: null, status: 404, level: "info" },
    { user: undefined, method: "POST", route: "/chats/:id/answer", status: 413, level: "info" },
    { user: "ada", method: "POST", route: "/chats/:id/answer", status: 500, level: "error" },
  ];
  for (const [i, line] of requests.entries()) {
    const { user, method, route, status, level } = line;
    assert.deepEqual({ user, method, route, status, level }, expected[i]);
    assert.match(line.request_id!, /^[0-9a-f]{8}$/);
    assert.equal(responses[i]!.headers.get("x-request-id"), line.request_id);
    assert.ok(Number.isInteger(line.duration_ms) && line.duration_ms! >= 0);
    assert.ok(!JSON.stringify(line).includes(chat.id), "the route is a pattern, not the path");
  }

  // The 500 carries its request id in the body, and an error line with the stack has it too.
  const bug = requests.at(-1)!;
  const { error } = await responses.at(-1)!.json();
  assert.equal(
    error.message,
    `Something went wrong on the server (request ${bug.request_id}); it has been logged`,
  );
  const logged = parse(api.logs).find((line) => line.stack && line.request_id === bug.request_id);
  assert.equal(logged?.level, "error");
  assert.equal(logged?.message, "TypeError: undefined is not a function");
  assert.match(logged!.stack!, /undefined is not a function\n\s+at /);
});

Deno.test("jsonLog() passes JSON lines on and makes plain notices info lines", () => {
  const lines: string[] = [];
  const log = jsonLog((line) => lines.push(line));
  log("svc API at http://127.0.0.1:1");
  log(logLine("warn", "Careful", { request_id: "abcd1234" }));
  log('{"not": "closed"');
  log("[1, 2]");
  const [notice, warning, broken, array] = parse(lines);
  assert.equal(notice!.message, "svc API at http://127.0.0.1:1");
  assert.equal(notice!.level, "info");
  assert.deepEqual([warning!.level, warning!.message, warning!.request_id], [
    "warn",
    "Careful",
    "abcd1234",
  ]);
  assert.equal(broken!.message, '{"not": "closed"');
  assert.equal(array!.message, "[1, 2]");
});

Deno.test("serveApi() logs its start-up notices, warnings and requests as JSON lines", async () => {
  await using dir = await tmpDir();
  const config = Config.from({ local_root: dir.path, api: { port: freePort() } }, {
    base: dir.path,
    env: {},
  });
  const lines: string[] = [];
  const stop = new AbortController();
  const api = await serveApi(config, { log: (line) => lines.push(line), signal: stop.signal });
  try {
    await (await fetch(`${api.url}/health`)).body?.cancel();
  } finally {
    stop.abort();
    await api.finished;
  }
  const parsed = parse(lines);
  assert.ok(parsed.some((l) => l.level === "warn" && /SvcDemoAuthentication/.test(l.message)));
  // An unset secret is made once and kept in the local root, which an info line names.
  if (Deno.env.get("SVC_API_DOCUMENT_UPLOAD_SECRET") === undefined) {
    const secret = /^SVC_API_DOCUMENT_UPLOAD_SECRET not set: made a signing secret and kept it in /;
    assert.ok(parsed.some((l) => l.level === "info" && secret.test(l.message)));
  }
  assert.ok(parsed.some((l) => l.level === "info" && l.message.startsWith("svc API at ")));
  assert.ok(parsed.some((l) => l.route === "/health" && l.status === 200));
});
