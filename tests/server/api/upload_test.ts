import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { smallDisk } from "../../_disk.ts";
import { testApi } from "./_api.ts";

const encoder = new TextEncoder();
const BOUNDARY = "svc-upload-test";
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

function field(name: string, value: string): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
}

function fileHead(name = "a.md"): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
    "Content-Type: text/markdown\r\n\r\n";
}

const END = `\r\n--${BOUNDARY}--\r\n`;

/**
 * A body that sends `parts` as they are read, then waits at its gate until
 * `open()` sends `rest` and ends it; `reachedGate` tells whether it was read
 * that far, and `cancelled` whether the server gave up reading it.
 */
function gatedBody(parts: string[], rest: string[] = []) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  const state = { cancelled: false, reachedGate: false, open };
  const queue = [...parts];
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = queue.shift();
      if (next !== undefined) return controller.enqueue(encoder.encode(next));
      state.reachedGate = true;
      await gate;
      for (const part of rest) controller.enqueue(encoder.encode(part));
      controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, state };
}

function put(url: string, body: BodyInit, headers: Record<string, string> = {}): Request {
  return new Request(url, {
    method: "PUT",
    headers: { "content-type": TYPE, ...headers },
    body,
    duplex: "half",
  } as RequestInit);
}

async function register(api: Awaited<ReturnType<typeof testApi>>, name = "a.md") {
  return await (await api.call("POST", "/document", { name })).json();
}

async function temporaryFiles(root: string): Promise<string[]> {
  try {
    return (await Array.fromAsync(Deno.readDir(join(root, "documents"))))
      .map((entry) => entry.name).filter((name) => name.startsWith(".upload-"));
  } catch {
    return [];
  }
}

Deno.test("PUT /document checks a token in X-Upload-Token or ?token= before any of the body came", async () => {
  await using api = await testApi();
  // A forged token is refused while the body has not even begun to come.
  const { stream } = gatedBody([]);
  const refused = await api.app.request(
    put("http://svc.test/document", stream, { "x-upload-token": "forged" }),
  );
  assert.equal(refused.status, 401);
  assert.match((await refused.json()).error.message, /upload token is not valid/);
  assert.equal(existsSync(join(api.deps.localRoot, "documents")), false);

  // A good one, in either place, with a form that has only the file.
  for (const where of ["header", "query"]) {
    const registered = await register(api);
    const token = registered.parameters.data.token;
    const body = fileHead() + `# Via the ${where}\n` + END;
    const response = await api.app.request(
      where === "header"
        ? put("http://svc.test/document", body, { "x-upload-token": token })
        : put(`http://svc.test/document?token=${token}`, body),
    );
    assert.deepEqual(await response.json(), registered.document);
  }
});

Deno.test("PUT /document checks the form's token before the file, and refuses a forged one with nothing written", async () => {
  await using api = await testApi();
  const { stream, state } = gatedBody([field("token", "forged"), fileHead(), "# The start"]);
  const response = await api.app.request(put("http://svc.test/document", stream));
  // The answer came while the file part was still coming, and the server stopped reading it.
  assert.equal(response.status, 401);
  assert.equal(state.cancelled, true);
  assert.equal(existsSync(join(api.deps.localRoot, "documents")), false);

  // A good token lets the file be written as it comes, before the body ends.
  const registered = await register(api);
  const good = gatedBody(
    [field("token", registered.parameters.data.token), fileHead(), "# The start\n"],
    ["and the rest\n", END],
  );
  const answering = api.app.request(put("http://svc.test/document", good.stream));
  // The rest of the body is held back, so a file can only appear while the upload streams;
  // the wait is a guard against a hang, long enough for a busy machine.
  let written: string[] = [];
  for (let tries = 0; written.length === 0 && tries < 2000; tries++) {
    if (good.state.reachedGate) written = await temporaryFiles(api.deps.localRoot);
    if (written.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.equal(written.length, 1, "the admitted upload is written while it streams");
  good.state.open();
  assert.deepEqual(await (await answering).json(), registered.document);
  assert.equal(
    await Deno.readTextFile(join(api.deps.localRoot, "documents", registered.document.id)),
    "# The start\nand the rest\n",
  );
  assert.deepEqual(await temporaryFiles(api.deps.localRoot), []);
});

Deno.test("PUT /document refuses a file part before any token with 401, writing nothing", async () => {
  await using api = await testApi();
  const registered = await register(api);
  const token = registered.parameters.data.token;
  const { stream, state } = gatedBody([fileHead(), "# File first"], [END, field("token", token)]);
  const response = await api.app.request(put("http://svc.test/document", stream));
  assert.equal(response.status, 401);
  assert.equal(
    (await response.json()).error.message,
    'The upload\'s file part came before its token: send the "token" field before the file, ' +
      "or the token in the X-Upload-Token header",
  );
  assert.equal(state.cancelled, true, "the server stopped reading the body");
  assert.equal(existsSync(join(api.deps.localRoot, "documents")), false);
  // The token was not used up.
  const again = await api.app.request(
    put("http://svc.test/document", field("token", token) + fileHead() + "# Again" + END),
  );
  assert.equal(again.status, 200);
});

Deno.test("PUT /document refuses two different tokens with 422", async () => {
  await using api = await testApi();
  const a = await register(api, "a.md");
  const b = await register(api, "b.md");
  const response = await api.app.request(
    put(
      "http://svc.test/document",
      field("token", b.parameters.data.token) + fileHead() + "# Which?" + END,
      { "x-upload-token": a.parameters.data.token },
    ),
  );
  assert.equal(response.status, 422);
  assert.equal(
    (await response.json()).error.message,
    'The upload has two different tokens, in its "token" field and in the X-Upload-Token header ' +
      'or the "token" query parameter: send one',
  );
  assert.deepEqual(await temporaryFiles(api.deps.localRoot), []);
});

Deno.test("PUT /document stops reading a file sent without a length once it passes the limit", async () => {
  await using api = await testApi({ maxUploadSize: 1000 });
  const registered = await register(api);
  const { stream, state } = gatedBody([
    field("token", registered.parameters.data.token),
    fileHead(),
    "x".repeat(600),
    "x".repeat(600),
  ]);
  const response = await api.app.request(put("http://svc.test/document", stream));
  assert.equal(response.status, 413);
  assert.equal(state.cancelled, true, "the server stopped reading the body");
  assert.deepEqual(await temporaryFiles(api.deps.localRoot), []);
});

Deno.test("PUT /document answers 503 when the upload cannot be written, and keeps nothing", async () => {
  await using api = await testApi();
  const registered = await register(api);
  // documents/ is a file: no folder can be made there.
  await Deno.writeTextFile(join(api.deps.localRoot, "documents"), "");
  const response = await api.app.request(
    put(
      "http://svc.test/document",
      field("token", registered.parameters.data.token) + fileHead() + "# Nowhere" + END,
    ),
  );
  assert.equal(response.status, 503);
  assert.equal(
    (await response.json()).error.message,
    "Cannot store the upload: the documents folder is not writable",
  );
  const logged = api.logs.map((line) => JSON.parse(line)).find((line) => line.status === 503);
  assert.ok(logged, "a 503 is logged with its cause");
});

Deno.test("PUT /document answers 507 on a full disk and 503 on a read-only one, keeping nothing, and stores once it can", async () => {
  await using api = await testApi();
  await using disk = await smallDisk(1024 * 1024);
  // The documents go to the small disk; the database stays where it is.
  api.deps.localRoot = disk.path;
  await Deno.mkdir(join(disk.path, "documents"));
  const registered = await register(api);
  const upload = async (content: string) =>
    await api.app.request(
      put(
        "http://svc.test/document",
        field("token", registered.parameters.data.token) + fileHead() + content + END,
      ),
    );

  await disk.fill();
  const full = await upload("x".repeat(64 * 1024));
  assert.deepEqual([full.status, (await full.json()).error.message], [
    507,
    "Cannot store the upload: the disk is full",
  ]);
  assert.deepEqual(await temporaryFiles(disk.path), []);
  await disk.free();

  await disk.readOnly();
  const readOnly = await upload("# Notes");
  assert.deepEqual([readOnly.status, (await readOnly.json()).error.message], [
    503,
    "Cannot store the upload: the disk is read-only",
  ]);
  await disk.writable();
  assert.deepEqual(await temporaryFiles(disk.path), []);

  // Nothing was used up: the same token uploads the file.
  const stored = await upload("# Notes");
  assert.equal(stored.status, 200);
  assert.equal(
    await Deno.readTextFile(join(disk.path, "documents", registered.document.id)),
    "# Notes",
  );
});

/** A body that sends `head`, then one more byte of the file each time it is read, after `ms`. */
function drippingBody(head: string, ms: number) {
  const state = { cancelled: false, sent: 0 };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let first = true;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (first) {
        first = false;
        return controller.enqueue(encoder.encode(head));
      }
      return new Promise((done) => {
        timer = setTimeout(() => {
          state.sent++;
          controller.enqueue(encoder.encode("x"));
          done();
        }, ms);
      });
    },
    cancel() {
      clearTimeout(timer);
      state.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, state };
}

Deno.test("PUT /document cuts uploads that drip slower than SVC_API_UPLOAD_MIN_RATE with 408, writing nothing and freeing their slots", async () => {
  await using api = await testApi();
  api.deps.uploadMinRate = 1000;
  api.deps.uploadRateWindow = 200;
  // Each of the user's eight slots, taken by a drip of a byte every 20 ms.
  const drips = await Promise.all(Array.from({ length: 8 }, async () => {
    const { parameters } = await register(api);
    return drippingBody(field("token", parameters.data.token) + fileHead(), 20);
  }));
  const responses = await Promise.all(
    drips.map(({ stream }) => api.app.request(put("http://svc.test/document", stream))),
  );
  for (const response of responses) {
    assert.equal(response.status, 408);
    assert.match(
      (await response.json()).error.message,
      /^The upload came too slowly: \d+ bytes in 0\.2 s, under the least of 1000 bytes per second \(SVC_API_UPLOAD_MIN_RATE\)/,
    );
  }
  assert.ok(drips.every(({ state }) => state.cancelled && state.sent < 100));
  assert.deepEqual(await temporaryFiles(api.deps.localRoot), []);
  // The slots are free again: an upload at a real pace goes through.
  const { response, document } = await api.upload("fine.md", "# Fine\n\nSent at once.\n");
  assert.equal(response.status, 200, JSON.stringify(document));
});
