import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { bytes } from "../../../server/api/storage_quota.ts";
import { type TestApi, testApi } from "./_api.ts";

const BOUNDARY = "svc-quota-test";

/** The documents folder's files: what uploads left on the disk. */
function filesOf(api: TestApi): string[] {
  const folder = `${api.deps.localRoot}/documents`;
  return existsSync(folder) ? [...Deno.readDirSync(folder)].map((entry) => entry.name).sort() : [];
}

/** Registers a document and returns its upload token. */
async function register(api: TestApi, name: string): Promise<{ id: string; token: string }> {
  const registered = await (await api.call("POST", "/document", { name })).json();
  return { id: registered.document.id, token: registered.parameters.data.token };
}

/** Options of {@linkcode streamUpload}. */
interface StreamOptions {
  /** The file's chunks of 64 KiB. */
  chunks: number;
  /** Stop sending after this many chunks and wait, as a client that stalls does. */
  stallAfter?: number;
  headers?: Record<string, string>;
}

/**
 * Uploads a file as a multipart body that streams in chunks of 64 KiB, without
 * a declared length unless given; `pulled` is how many bytes the server read.
 */
async function streamUpload(api: TestApi, token: string, options: StreamOptions) {
  const encoder = new TextEncoder();
  const head = encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="token"\r\n\r\n${token}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\n` +
      "Content-Type: text/plain\r\n\r\n",
  );
  const tail = encoder.encode(`\r\n--${BOUNDARY}--\r\n`);
  const chunk = new Uint8Array(64 * 1024).fill(120);
  let sent = 0;
  let pulled = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: Uint8Array;
      if (sent === 0) next = head;
      else if (sent <= options.chunks) {
        if (options.stallAfter !== undefined && sent > options.stallAfter) {
          return await new Promise<void>(() => {});
        }
        next = chunk;
      } else if (sent === options.chunks + 1) next = tail;
      else return controller.close();
      sent++;
      pulled += next.byteLength;
      controller.enqueue(next);
    },
    cancel() {
      cancelled = true;
    },
  }, { highWaterMark: 0 });
  const response = await api.app.request("http://svc.test/document", {
    method: "PUT",
    body,
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}`, ...options.headers },
    duplex: "half",
  } as RequestInit);
  return { response, pulled, cancelled: () => cancelled };
}

/** The refusal of an upload of `name` by the storage quota; `body` when it was read already. */
async function expectRefusal(
  response: Response,
  name: string,
  used: string,
  limit: string,
  body?: unknown,
) {
  assert.equal(response.status, 413);
  assert.deepEqual(body ?? await response.json(), {
    error: {
      message: `Cannot upload "${name}": it would take your documents past the storage limit ` +
        `of ${limit} per user, of which they take ${used} already`,
    },
  });
}

Deno.test("PUT /document refuses with 413 before writing when the user's uploads fill the storage quota", async () => {
  await using api = await testApi({ maxStoragePerUser: 1000 });
  const first = await api.upload("first.txt", "x".repeat(1000));
  assert.equal(first.response.status, 200);
  const before = filesOf(api);
  assert.deepEqual(before, [first.document.id]);

  // The client sends the file's first chunk, then nothing: only a refusal before writing answers.
  const { token } = await register(api, "second.txt");
  const refused = await streamUpload(api, token, { chunks: 4, stallAfter: 1 });
  await expectRefusal(refused.response, "second.txt", "1000 bytes", "1000 bytes");
  assert.deepEqual(filesOf(api), before);
  assert.equal(await api.deps.database.storageUsed("ada"), 1000);

  // Another user has a quota of their own.
  await api.as("bob");
  assert.equal((await api.upload("bob.txt", "y".repeat(1000))).response.status, 200);
});

Deno.test("PUT /document refuses with 413 before writing an upload whose declared length passes the quota", async () => {
  await using api = await testApi({
    maxStoragePerUser: 256 * 1024,
    maxUploadSize: 100 * 1024 ** 2,
  });
  const { token } = await register(api, "big.txt");
  const declared = String(10 * 1024 ** 2);
  const refused = await streamUpload(api, token, {
    chunks: 160,
    stallAfter: 1,
    headers: { "content-length": declared },
  });
  await expectRefusal(refused.response, "big.txt", "0 bytes", "256 KiB");
  assert.deepEqual(filesOf(api), []);
});

Deno.test("PUT /document cuts off a streamed body as soon as it passes the quota, leaving nothing", async () => {
  await using api = await testApi({
    maxStoragePerUser: 256 * 1024,
    maxUploadSize: 100 * 1024 ** 2,
  });
  await api.upload("small.txt", "x".repeat(1024));
  const before = filesOf(api);
  const { token } = await register(api, "big.txt");
  // 10 MiB sent without a declared length, within the upload limit but not the quota.
  const refused = await streamUpload(api, token, { chunks: 160 });
  await expectRefusal(refused.response, "big.txt", "1 KiB", "256 KiB");
  // Read up to the quota, the slack for the multipart framing and a few chunks that the streams
  // between the client and the file read ahead: not the 10 MiB sent.
  assert.ok(refused.pulled <= 640 * 1024, `${refused.pulled} bytes read`);
  assert.ok(refused.cancelled(), "the rest of the body was never asked for");
  assert.deepEqual(filesOf(api), before);
  assert.equal(await api.deps.database.storageUsed("ada"), 1024);
});

Deno.test("PUT /document refuses with 413 a whole file whose exact size passes the quota, keeping nothing", async () => {
  await using api = await testApi({ maxStoragePerUser: 1000 });
  assert.equal((await api.upload("a.txt", "x".repeat(600))).response.status, 200);
  const before = filesOf(api);
  const { response, document: body } = await api.upload("b.txt", "y".repeat(401));
  await expectRefusal(response, "b.txt", "600 bytes", "1000 bytes", body);
  assert.deepEqual(filesOf(api), before);
  assert.equal(await api.deps.database.storageUsed("ada"), 600);
  // What is left of the quota, exactly, still fits.
  const fits = await api.upload("c.txt", "z".repeat(400));
  assert.equal(fits.response.status, 200);
  assert.equal(await api.deps.database.storageUsed("ada"), 1000);
});

Deno.test("PUT /document keeps uploads that end at once within the quota together", async () => {
  await using api = await testApi({ maxStoragePerUser: 1000 });
  const responses = await Promise.all(
    ["a.txt", "b.txt", "c.txt"].map((name) => api.upload(name, "x".repeat(400))),
  );
  const statuses = responses.map(({ response }) => response.status).sort();
  assert.deepEqual(statuses, [200, 200, 413]);
  assert.equal(filesOf(api).length, 2);
  assert.equal(await api.deps.database.storageUsed("ada"), 800);
});

Deno.test("bytes() says a size in the largest unit it reaches", () => {
  assert.equal(bytes(1), "1 byte");
  assert.equal(bytes(1023), "1023 bytes");
  assert.equal(bytes(1536), "1.5 KiB");
  assert.equal(bytes(100 * 1024 ** 2), "100 MiB");
  assert.equal(bytes(1024 ** 3), "1 GiB");
  assert.equal(bytes(1.25 * 1024 ** 4), "1.3 TiB");
});

Deno.test("POST /document refuses with 429 past SVC_API_MAX_PENDING_DOCUMENTS_PER_USER registrations without their file", async () => {
  await using api = await testApi();
  api.deps.maxPendingDocumentsPerUser = 3;
  const register = (name: string) => api.call("POST", "/document", { name });
  for (const name of ["a.md", "b.md", "c.md"]) assert.equal((await register(name)).status, 200);
  const refused = await register("d.md");
  assert.equal(refused.status, 429);
  // Until the first registration's token ends, 300 s after it: a second may have passed since.
  const wait = Number(refused.headers.get("retry-after"));
  assert.ok(wait >= 298 && wait <= 300, `Retry-After: ${wait}`);
  assert.equal(
    (await refused.json()).error.message,
    'Cannot register "d.md": you have registered 3 documents whose files have not come, the ' +
      "most one user may have waiting (SVC_API_MAX_PENDING_DOCUMENTS_PER_USER); upload their " +
      `files, or try again in ${wait} s`,
  );
  // Another user is not counted with this one, and an upload that came counts no more.
  await api.as("bob");
  const { response } = await api.upload("e.md", "# E\n");
  assert.equal(response.status, 200);
  assert.equal((await register("f.md")).status, 200);
});
