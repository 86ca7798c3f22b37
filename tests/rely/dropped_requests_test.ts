/**
 * Requests cut off or stalled against a real `svc api` process, on raw TCP:
 * the connection is closed at every stage of every route that takes a body,
 * or the body stops coming. The server must go on answering, keep no
 * temporary file, and log no failure of its own.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { tmpDir } from "../test_utils.ts";
import {
  cutOff,
  multipart,
  offsetOf,
  type Part,
  type RawRequest,
  rawRequest,
  readResponse,
  writeAll,
} from "./_raw_http.ts";
import { failures, temporaryUploads } from "./_checks.ts";
import { Client, startSvc, waitFor } from "./_server.ts";
import { integration } from "../_tier.ts";

const FILE = "# Dropped\n\n" + "The upload that was cut off. ".repeat(70);

/** A route with a body, made afresh for each cut (an upload needs a new token). */
interface Case {
  label: string;
  make(): Promise<RawRequest>;
}

function cases(client: Client, bearer: string, chat: string, document: unknown): Case[] {
  const json = (method: string, path: string, body: unknown) => () =>
    Promise.resolve(rawRequest(method, path, {
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }));
  const upload = (order: "token first" | "file first" | "header" | "query" | "forged") => {
    return async () => {
      const { parameters } = await client.call("POST", "/document", { name: "dropped.md" });
      const token = order === "forged" ? "forged.token.value" : parameters.data.token;
      const file: Part = { name: "file", filename: "dropped.md", content: FILE };
      const field: Part = { name: "token", value: token };
      const parts = order === "file first"
        ? [file, field]
        : order === "header" || order === "query"
        ? [file]
        : [field, file];
      const { body, type } = multipart(parts);
      const headers: Record<string, string> = { "content-type": type };
      if (order === "header") headers["x-upload-token"] = token;
      const path = order === "query" ? `/document?token=${token}` : "/document";
      return rawRequest("PUT", path, { headers, body });
    };
  };
  return [
    {
      label: "POST /token",
      make: () =>
        Promise.resolve(rawRequest("POST", "/token", {
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "username=ada&password=ada",
        })),
    },
    { label: "POST /document", make: json("POST", "/document", { name: "notes.md" }) },
    { label: "PUT /document, token field first", make: upload("token first") },
    { label: "PUT /document, file part first", make: upload("file first") },
    { label: "PUT /document, token in the header", make: upload("header") },
    { label: "PUT /document, token in the query", make: upload("query") },
    { label: "PUT /document, forged token", make: upload("forged") },
    {
      label: "POST /chats",
      make: json("POST", "/chats", {
        name: "Cut",
        source_storage: "Test/SlowStorage",
        assistant: "Test/Numbered",
        params: {},
        documents: [document],
      }),
    },
    { label: "POST /chats/{id}/prepare", make: json("POST", `/chats/${chat}/prepare`, {}) },
    {
      label: "POST /chats/{id}/answer, streamed",
      make: json("POST", `/chats/${chat}/answer`, { prompt: "Cut?", stream: true }),
    },
    {
      label: "POST /chats/{id}/answer, whole",
      make: json("POST", `/chats/${chat}/answer`, { prompt: "Cut?", stream: false }),
    },
    {
      label: "POST /chat/{id}/answer",
      make: json("POST", `/chat/${chat}/answer`, { prompt: "Cut?", stream: true }),
    },
  ];
}

/**
 * Where to cut a request: in its request line, in its headers, at their end,
 * at the start, middle and end of its body, at the start of each part of a
 * multipart body and inside its file, and after its last byte.
 */
function offsets({ bytes, bodyStart }: RawRequest): number[] {
  const n = bytes.length;
  const body = n - bodyStart;
  const cuts = [
    1,
    Math.floor(bodyStart / 2),
    bodyStart - 1,
    bodyStart,
    bodyStart + 1,
    bodyStart + Math.floor(body / 2),
    n - 1,
    n,
  ];
  const text = new TextDecoder().decode(bytes);
  if (text.includes('name="file"')) {
    const file = offsetOf(bytes, 'name="file"');
    cuts.push(file, offsetOf(bytes.subarray(file), "\r\n\r\n") + file + 4, file + 600);
  }
  if (text.includes('name="token"')) cuts.push(offsetOf(bytes, 'name="token"') + 30);
  return [...new Set(cuts)].filter((cut) => cut > 0 && cut <= n).sort((a, b) => a - b);
}

integration.test("svc api answers and keeps no temporary file after a connection cut at any stage of any route with a body", async () => {
  await using dir = await tmpDir();
  // A long body timeout: what removes the temporary files must be the cut, not the timeout.
  await using svc = await startSvc(dir.path, { env: { SVC_API_BODY_TIMEOUT: "300" } });
  const port = Number(new URL(svc.base).port);
  const client = await Client.login(svc.base);
  const bearer = client.token;
  const document = await client.upload("kept.md", "# Kept\n\nThis one is whole.\n");
  const chat = await client.createChat("Target", [document], { chunks: 3, delay_ms: 5 });
  await client.call("POST", `/chats/${chat.id}/prepare`);

  let cuts = 0;
  for (const { label, make } of cases(client, bearer, chat.id, document)) {
    for (const offset of offsets(await make())) {
      const request = await make();
      await cutOff(port, request.bytes, offset);
      cuts++;
      const health = await fetch(`${svc.base}/health`);
      assert.equal(health.status, 200, `${label}, cut at ${offset}: ${await health.text()}`);
      await waitFor(
        `the temporary file of ${label}, cut at ${offset}, to go`,
        async () => (await temporaryUploads(svc)).length === 0 || undefined,
        10_000,
      );
    }
  }
  assert.ok(cuts > 100, `${cuts} cuts`);
  assert.deepEqual(failures(svc), [], "no request failed on the server's side");
  assert.doesNotMatch(svc.stderr(), /Uncaught|BadResource/);
  // What is left in documents/ is whole uploads, named by their document's id.
  for await (const entry of Deno.readDir(join(svc.root, "documents"))) {
    assert.match(entry.name, /^[0-9a-f-]{36}$/);
    const text = await Deno.readTextFile(join(svc.root, "documents", entry.name));
    assert.ok(text === FILE || text.startsWith("# Kept"), `${entry.name} is whole`);
  }
  // The chats go on.
  const answer = await client.call("POST", `/chats/${chat.id}/answer`, { prompt: "Still there?" });
  assert.equal(answer.content, "0 1 2 ");
});

integration.test("a body that stops sending gets a 408 after SVC_API_BODY_TIMEOUT, and its upload leaves no file", async () => {
  await using dir = await tmpDir();
  await using svc = await startSvc(dir.path, { env: { SVC_API_BODY_TIMEOUT: "1.5" } });
  const port = Number(new URL(svc.base).port);
  const client = await Client.login(svc.base);
  const bearer = client.token;
  const { parameters } = await client.call("POST", "/document", { name: "stalled.md" });
  const { body, type } = multipart([
    { name: "token", value: parameters.data.token },
    { name: "file", filename: "stalled.md", content: FILE },
  ]);
  const stalled = [
    rawRequest("PUT", "/document", { headers: { "content-type": type }, body }),
    rawRequest("POST", "/token", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "username=ada&password=ada",
    }),
    rawRequest("POST", "/chats", {
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Stalled", documents: [] }),
    }),
  ];
  for (const [i, request] of stalled.entries()) {
    const connection = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      // Headers and half the body, then nothing.
      const half = request.bodyStart + Math.floor((request.bytes.length - request.bodyStart) / 2);
      await writeAll(connection, request.bytes.subarray(0, half));
      if (i === 0) {
        // The upload was let in and is being written...
        await waitFor(
          "the upload's temporary file",
          async () => (await temporaryUploads(svc)).length === 1 || undefined,
        );
      }
      const response = await readResponse(connection);
      assert.equal(response.status, 408, response.body);
      assert.deepEqual(JSON.parse(response.body), {
        error: {
          message:
            "The request body stopped arriving: nothing came for 1.5 s (SVC_API_BODY_TIMEOUT)",
        },
      });
      // ...and is gone with the 408.
      assert.deepEqual(await temporaryUploads(svc), []);
    } finally {
      connection.close();
    }
  }
  // The document can still be uploaded with the same token, which the stall did not use up.
  const form = new FormData();
  form.set("token", parameters.data.token);
  form.set("file", new Blob([FILE]), "stalled.md");
  const response = await fetch(parameters.url, { method: "PUT", body: form });
  assert.equal(response.status, 200, await response.text());
  assert.deepEqual(failures(svc), []);
});
