import assert from "node:assert/strict";
import { SvcError } from "../../components/core/errors.ts";
import { embedderFromEnv, HashEmbedder, OpenAIEmbedder } from "../../components/embeddings/mod.ts";

Deno.test("embedderFromEnv() picks the offline hash embedder by default", () => {
  for (const env of [{}, { SVC_EMBEDDING_MODEL: "" }, { SVC_EMBEDDING_MODEL: "svc/hash-v1" }]) {
    const embedder = embedderFromEnv(env);
    assert.ok(embedder instanceof HashEmbedder);
    assert.equal(embedder.id, "svc/hash-v1-512");
  }
  assert.equal(embedderFromEnv({ SVC_EMBEDDING_MODEL: "svc/hash-v1-384" }).dimension, 384);
  assert.equal(embedderFromEnv({ SVC_EMBEDDING_DIMENSION: "256" }).id, "svc/hash-v1-256");
});

Deno.test("embedderFromEnv() picks an OpenAI-compatible endpoint for openai/<model>", () => {
  const embedder = embedderFromEnv({
    SVC_EMBEDDING_MODEL: "openai/text-embedding-3-small",
    OPENAI_API_KEY: "sk-test",
    OPENAI_BASE_URL: "http://127.0.0.1:1/v1",
  });
  assert.ok(embedder instanceof OpenAIEmbedder);
  assert.equal(embedder.id, "openai/text-embedding-3-small");
  assert.equal(embedder.dimension, 1536);
  const local = embedderFromEnv({
    SVC_EMBEDDING_MODEL: "openai/nomic-embed-text",
    SVC_EMBEDDING_DIMENSION: "768",
  });
  assert.equal(local.dimension, 768);
});

Deno.test("embedderFromEnv() refuses a model or dimension it cannot use", () => {
  const refusals: [Record<string, string>, RegExp][] = [
    [{ SVC_EMBEDDING_MODEL: "bert" }, /^Unknown embedding model "bert" in SVC_EMBEDDING_MODEL/],
    [{ SVC_EMBEDDING_MODEL: "openai/" }, /^Unknown embedding model "openai\/"/],
    [{ SVC_EMBEDDING_DIMENSION: "many" }, /^SVC_EMBEDDING_DIMENSION must be an integer above 1/],
    [
      { SVC_EMBEDDING_MODEL: "svc/hash-v1-384", SVC_EMBEDDING_DIMENSION: "512" },
      /"svc\/hash-v1-384" and SVC_EMBEDDING_DIMENSION "512" disagree/,
    ],
  ];
  for (const [env, message] of refusals) {
    assert.throws(
      () => embedderFromEnv(env),
      (e) => e instanceof SvcError && message.test(e.message),
    );
  }
});
