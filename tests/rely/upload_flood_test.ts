/**
 * Uploads in numbers against a real `svc api` process: a flood of large
 * uploads with a forged token, or with no token before the file, must write
 * nothing; uploads over the per-user and overall bounds are refused with a
 * 429 before anything is written.
 * @module
 */
import assert from "node:assert/strict";
import { tmpDir } from "../test_utils.ts";
import { diskUse, failures, temporaryUploads } from "./_checks.ts";
import { exchange, multipart, type Part, rawRequest, readResponse, writeAll } from "./_raw_http.ts";
import { Client, pause, startSvc, waitFor } from "./_server.ts";
import { integration } from "../_tier.ts";

const MiB = 1024 * 1024;

integration.test("a flood of 8 MiB uploads with a forged token or none writes under 1 MiB, and /health answers throughout", async () => {
  await using dir = await tmpDir();
  await using svc = await startSvc(dir.path);
  const port = Number(new URL(svc.base).port);
  const file: Part = { name: "file", filename: "flood.md", content: new Uint8Array(8 * MiB) };
  const forged = "eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyIjoiZXZlIn0.forged";
  const floods = [
    // The form of the interface: the forged token first, then the file.
    ...Array.from({ length: 8 }, () => {
      const { body, type } = multipart([{ name: "token", value: forged }, file]);
      return rawRequest("PUT", "/document", { headers: { "content-type": type }, body });
    }),
    // No token before the file.
    ...Array.from({ length: 8 }, () => {
      const { body, type } = multipart([file, { name: "token", value: forged }]);
      return rawRequest("PUT", "/document", { headers: { "content-type": type }, body });
    }),
    // A forged token in the header.
    ...Array.from({ length: 8 }, () => {
      const { body, type } = multipart([file]);
      return rawRequest("PUT", "/document", {
        headers: { "content-type": type, "x-upload-token": forged },
        body,
      });
    }),
  ];
  const before = await diskUse(svc.root);
  let most = 0;
  let healthy = 0;
  let flooding = true;
  const watching = (async () => {
    while (flooding) {
      most = Math.max(most, (await diskUse(svc.root)) - before);
      const health = await fetch(`${svc.base}/health`);
      if (health.ok) healthy++;
      await health.body?.cancel();
      await pause(10);
    }
  })();
  const responses = await Promise.all(floods.map((request) => exchange(port, request.bytes)));
  flooding = false;
  await watching;
  most = Math.max(most, (await diskUse(svc.root)) - before);

  assert.deepEqual(responses.map((response) => response.status), floods.map(() => 401));
  const messages = new Set(responses.map((response) => JSON.parse(response.body).error.message));
  assert.deepEqual([...messages].sort(), [
    "The upload token is not valid",
    'The upload\'s file part came before its token: send the "token" field before the file, ' +
    "or the token in the X-Upload-Token header",
  ]);
  assert.ok(most < MiB, `the flood of ${floods.length * 8} MiB put ${most} bytes on disk`);
  assert.ok(healthy > 0, "/health answered during the flood");
  assert.deepEqual(await temporaryUploads(svc), []);
  assert.deepEqual(failures(svc), []);
  console.log(`disk use under the flood: at most ${most} bytes; /health answered ${healthy} times`);
});

integration.test("uploads over SVC_API_MAX_UPLOADS_PER_USER or SVC_API_MAX_UPLOADS get 429 and write nothing", async () => {
  await using dir = await tmpDir();
  await using svc = await startSvc(dir.path, {
    env: { SVC_API_MAX_UPLOADS_PER_USER: "1", SVC_API_MAX_UPLOADS: "2" },
  });
  const port = Number(new URL(svc.base).port);
  const content = "# Held\n\n" + "An upload that takes its time. ".repeat(100);
  const upload = async (client: Client) => {
    const { parameters, document } = await client.call("POST", "/document", { name: "held.md" });
    const { body, type } = multipart([
      { name: "token", value: parameters.data.token },
      { name: "file", filename: "held.md", content },
    ]);
    return {
      document,
      request: rawRequest("PUT", "/document", { headers: { "content-type": type }, body }),
    };
  };
  /** Sends all but the last 100 bytes, and holds the rest until `finish()`. */
  const hold = async (client: Client) => {
    const { document, request } = await upload(client);
    const connection = await Deno.connect({ hostname: "127.0.0.1", port });
    await writeAll(connection, request.bytes.subarray(0, request.bytes.length - 100));
    return {
      document,
      async finish() {
        await writeAll(connection, request.bytes.subarray(request.bytes.length - 100));
        const response = await readResponse(connection);
        connection.close();
        return response;
      },
    };
  };
  const [ada, bob, cy] = await Promise.all(
    ["ada", "bob", "cy"].map((user) => Client.login(svc.base, user)),
  );

  const first = await hold(ada!);
  await waitFor(
    "ada's first upload to be written",
    async () => (await temporaryUploads(svc)).length === 1 || undefined,
  );
  const second = await upload(ada!);
  const refused = await exchange(port, second.request.bytes);
  assert.equal(refused.status, 429);
  assert.equal(
    JSON.parse(refused.body).error.message,
    "Too many uploads at once: you have 1 uploads running, the most one user may run at once " +
      "(SVC_API_MAX_UPLOADS_PER_USER); send it again when one has finished",
  );
  assert.equal((await temporaryUploads(svc)).length, 1, "nothing was written for it");

  const other = await hold(bob!);
  await waitFor(
    "bob's upload to be written",
    async () => (await temporaryUploads(svc)).length === 2 || undefined,
  );
  const third = await exchange(port, (await upload(cy!)).request.bytes);
  assert.equal(third.status, 429);
  assert.equal(
    JSON.parse(third.body).error.message,
    "Too many uploads at once: the server is receiving 2 uploads, the most it takes at once " +
      "(SVC_API_MAX_UPLOADS); send it again when one has finished",
  );
  assert.equal((await temporaryUploads(svc)).length, 2, "nothing was written for it");

  // Once one has finished, the refused upload goes through with the same token.
  const finished = await first.finish();
  assert.equal(finished.status, 200, finished.body);
  assert.deepEqual(JSON.parse(finished.body), first.document);
  const again = await exchange(port, second.request.bytes);
  assert.equal(again.status, 200, again.body);
  assert.equal((await other.finish()).status, 200);
  assert.deepEqual(await temporaryUploads(svc), []);
  assert.deepEqual(failures(svc), []);
});
