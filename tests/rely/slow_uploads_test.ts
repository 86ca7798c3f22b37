/**
 * Slow-drip uploads against a real `svc api` process: uploads that send a
 * byte now and then, taking every upload slot, are cut with a 408 once a
 * window passes under the least rate, and their slots are free again;
 * meanwhile the server answers `/health` and another user's requests.
 * @module
 */
import assert from "node:assert/strict";
import { tmpDir } from "../test_utils.ts";
import { failures, temporaryUploads } from "./_checks.ts";
import { drip } from "./_hostile_uploads.ts";
import { Client, startSvc, waitFor } from "./_server.ts";
import { integration } from "../_tier.ts";

integration.test("uploads dripping a byte at a time in every slot are cut with 408, and the slots serve others after", async () => {
  await using dir = await tmpDir();
  await using svc = await startSvc(dir.path, {
    env: {
      SVC_API_UPLOAD_MIN_RATE: "1000",
      SVC_API_UPLOAD_RATE_WINDOW: "4",
      SVC_API_MAX_UPLOADS_PER_USER: "2",
      SVC_API_MAX_UPLOADS: "4",
    },
  });
  const port = Number(new URL(svc.base).port);
  const [eve, mallory, bob] = await Promise.all(
    ["eve", "mallory", "bob"].map((user) => Client.login(svc.base, user)),
  );
  const drips = [eve!, eve!, mallory!, mallory!].map((client) => drip(client, port));
  await waitFor(
    "the four drips to hold every slot",
    async () => (await temporaryUploads(svc)).length === 4 || undefined,
  );
  // Every slot is taken: another user's upload waits for one to free.
  const refused = await bob!.request("POST", "/document", { name: "later.md" });
  const { parameters } = await refused.json();
  const form = () => {
    const data = new FormData();
    data.set("token", parameters.data.token);
    data.set("file", new Blob(["# Later\n"]), "later.md");
    return data;
  };
  const busy = await fetch(parameters.url, { method: "PUT", body: form() });
  assert.equal(busy.status, 429, await busy.clone().text());
  await busy.body?.cancel();
  // The server answers others while the drips go on.
  assert.equal((await fetch(`${svc.base}/health`)).status, 200);
  const chats = await bob!.request("GET", "/chats");
  assert.equal(chats.status, 200);
  await chats.body?.cancel();

  const responses = await Promise.all(drips);
  for (const response of responses) {
    assert.equal(response.status, 408, response.body);
    assert.match(
      JSON.parse(response.body).error.message,
      /^The upload came too slowly: \d+ bytes in 4 s, under the least of 1000 bytes per second \(SVC_API_UPLOAD_MIN_RATE\)/,
    );
  }
  await waitFor(
    "the drips' files to go",
    async () => (await temporaryUploads(svc)).length === 0 || undefined,
  );
  const after = await fetch(parameters.url, { method: "PUT", body: form() });
  assert.equal(after.status, 200, await after.text());
  assert.deepEqual(failures(svc), []);
});
