import assert from "node:assert/strict";
import { SvcError } from "../../components/core/errors.ts";
import { OpenAIEmbedder } from "../../components/embeddings/openai.ts";

interface Received {
  model: string;
  input: string[];
  encoding_format?: string;
  dimensions?: number;
}

/**
 * A local OpenAI-compatible embeddings endpoint. Each request takes the next
 * of `statuses` (200 once they run out); a 200 answers, for each text, a vector
 * of `dimension` numbers starting with the text's length and its index.
 */
function fakeEndpoint(options: { statuses?: number[]; dimension?: number } = {}) {
  const statuses = [...options.statuses ?? []];
  const received: Received[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.json() as Received;
    received.push(body);
    const status = statuses.shift() ?? 200;
    if (status !== 200) {
      return Response.json({ error: { message: `status ${status}`, type: "test" } }, {
        status,
        headers: status === 429 ? { "retry-after": "0" } : {},
      });
    }
    const data = body.input.map((text, index) => {
      const vector = new Float32Array(options.dimension ?? body.dimensions ?? 3);
      vector.set([text.length, index].slice(0, vector.length));
      const embedding = body.encoding_format === "base64"
        ? btoa(String.fromCharCode(...new Uint8Array(vector.buffer)))
        : [...vector];
      return { object: "embedding", index, embedding };
    });
    return Response.json({ object: "list", data, model: body.model, usage: {} });
  });
  return {
    received,
    baseURL: `http://127.0.0.1:${server.addr.port}/v1`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

function embedder(
  baseURL: string,
  options: Partial<ConstructorParameters<typeof OpenAIEmbedder>[0]> = {},
) {
  return new OpenAIEmbedder({
    model: "test-model",
    dimension: 3,
    apiKey: "test-key",
    baseURL,
    backoff: 1,
    ...options,
  });
}

Deno.test("OpenAIEmbedder embeds in batches, in order, decoding the SDK's base64", async () => {
  await using endpoint = fakeEndpoint();
  const texts = Array.from({ length: 5 }, (_, i) => "x".repeat(i + 1));
  const vectors = await embedder(endpoint.baseURL, { batchSize: 2 }).embed(texts);
  assert.deepEqual(endpoint.received.map((r) => r.input.length), [2, 2, 1]);
  assert.ok(endpoint.received.every((r) => r.encoding_format === "base64"));
  assert.ok(endpoint.received.every((r) => r.model === "test-model" && !("dimensions" in r)));
  assert.deepEqual(vectors.map((v) => [...v]), [
    [1, 0, 0],
    [2, 1, 0],
    [3, 0, 0],
    [4, 1, 0],
    [5, 0, 0],
  ]);
});

Deno.test("OpenAIEmbedder retries 429 and 5xx answers, then succeeds", async () => {
  await using endpoint = fakeEndpoint({ statuses: [429, 503, 500] });
  const [vector] = await embedder(endpoint.baseURL, { retries: 3 }).embed(["abc"]);
  assert.equal(endpoint.received.length, 4);
  assert.deepEqual([...vector!], [3, 0, 0]);
});

Deno.test("OpenAIEmbedder gives up after its retries with a 502 naming model and status", async () => {
  await using endpoint = fakeEndpoint({ statuses: [503, 503, 503] });
  const error = await embedder(endpoint.baseURL, { retries: 2 }).embed(["abc"]).catch((e) => e);
  assert.ok(error instanceof SvcError);
  assert.equal(error.status, 502);
  assert.match(error.message, /^The embedding model "openai\/test-model" failed with status 503/);
  assert.equal(endpoint.received.length, 3);
});

Deno.test("OpenAIEmbedder does not retry other 4xx answers", async () => {
  await using endpoint = fakeEndpoint({ statuses: [401] });
  await assert.rejects(
    embedder(endpoint.baseURL).embed(["abc"]),
    (error) =>
      error instanceof SvcError && error.status === 502 && /status 401/.test(error.message),
  );
  assert.equal(endpoint.received.length, 1);
});

Deno.test("OpenAIEmbedder says when the endpoint cannot be reached", async () => {
  const endpoint = fakeEndpoint();
  const { baseURL } = endpoint;
  await endpoint[Symbol.asyncDispose]();
  await assert.rejects(
    embedder(baseURL, { retries: 1 }).embed(["abc"]),
    (error) =>
      error instanceof SvcError && error.status === 502 &&
      /^The embedding model "openai\/test-model" cannot be reached/.test(error.message),
  );
});

Deno.test("OpenAIEmbedder names its endpoint without the password and key of its URL", async () => {
  const endpoint = fakeEndpoint();
  const { baseURL } = endpoint;
  await endpoint[Symbol.asyncDispose]();
  const secretUrl = `${baseURL.replace("://", "://ada:hunter2@")}?key=secret#secret`;
  const secretive = embedder(secretUrl, { retries: 0 });
  assert.equal(secretive.description, `semantic, from the OpenAI-compatible endpoint ${baseURL}`);
  await assert.rejects(secretive.embed(["abc"]), (error) => {
    assert.ok(error instanceof SvcError && error.status === 502);
    assert.ok(error.message.includes(`cannot be reached at "${baseURL}"`), error.message);
    assert.ok(!/hunter2|secret|ada:/.test(error.message), error.message);
    return true;
  });
});

Deno.test("OpenAIEmbedder refuses vectors of another dimension, naming the fix", async () => {
  await using endpoint = fakeEndpoint({ dimension: 5 });
  await assert.rejects(
    embedder(endpoint.baseURL).embed(["abc"]),
    (error) =>
      error instanceof SvcError && error.status === 502 &&
      /vectors of 5 dimensions, not 3: set SVC_EMBEDDING_DIMENSION to 5/.test(error.message),
  );
});

Deno.test("OpenAIEmbedder knows OpenAI's dimensions and asks for shorter vectors", async () => {
  await using endpoint = fakeEndpoint();
  const known = embedder(endpoint.baseURL, {
    model: "text-embedding-3-small",
    dimension: undefined,
  });
  assert.equal(known.dimension, 1536);
  const short = embedder(endpoint.baseURL, { model: "text-embedding-3-small", dimension: 4 });
  const [vector] = await short.embed(["ab"]);
  assert.equal(endpoint.received[0]!.dimensions, 4);
  assert.deepEqual([...vector!], [2, 0, 0, 0]);
  assert.throws(
    () => embedder(endpoint.baseURL, { model: "nomic-embed-text", dimension: undefined }),
    /^SvcError: The dimension of the embedding model "nomic-embed-text" is not known: set SVC_EMBEDDING_DIMENSION/,
  );
});

Deno.test("OpenAIEmbedder stops when its signal aborts", async () => {
  await using endpoint = fakeEndpoint({ statuses: [503] });
  const controller = new AbortController();
  const embedding = embedder(endpoint.baseURL, { backoff: 10_000 }).embed(["abc"], {
    signal: controller.signal,
  });
  setTimeout(() => controller.abort(new Error("no longer wanted")), 50);
  await assert.rejects(embedding, /no longer wanted/);
});

Deno.test("OpenAIEmbedder describes itself by its endpoint, without the key", () => {
  const described = embedder("http://127.0.0.1:11434/v1", { apiKey: "sk-secret" }).description;
  assert.equal(
    described,
    "semantic, from the OpenAI-compatible endpoint http://127.0.0.1:11434/v1",
  );
});
