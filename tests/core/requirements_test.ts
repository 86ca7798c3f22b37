import assert from "node:assert/strict";
import {
  describeRequirement,
  EnvVarRequirement,
  PackageRequirement,
  ServerRequirement,
} from "../../components/core/requirements.ts";

Deno.test("EnvVarRequirement is met when the variable is set", async () => {
  const name = `SVC_TEST_${crypto.randomUUID().slice(0, 8).toUpperCase()}`;
  const requirement = new EnvVarRequirement(name);
  assert.equal(await requirement.isAvailable(), false);
  Deno.env.set(name, "");
  try {
    assert.equal(await requirement.isAvailable(), true);
  } finally {
    Deno.env.delete(name);
  }
});

Deno.test("PackageRequirement is met when the module loads, once", async () => {
  let loads = 0;
  const ok = new PackageRequirement("zod", () => {
    loads++;
    return import("zod");
  });
  assert.equal(await ok.isAvailable(), true);
  assert.equal(await ok.isAvailable(), true);
  assert.equal(loads, 1);
  const broken = new PackageRequirement("nope", () => Promise.reject(new Error("dlopen failed")));
  assert.equal(await broken.isAvailable(), false);
});

Deno.test("ServerRequirement names its server without the password and key of its URL", () => {
  const url = "http://ada:hunter2@gpu-box:11434/v1?key=secret#secret";
  const requirement = new ServerRequirement(`Ollama at "${url}"`, () => url);
  assert.equal(requirement.name, 'Ollama at "http://gpu-box:11434/v1"');
  assert.equal(
    describeRequirement(requirement),
    'the server Ollama at "http://gpu-box:11434/v1" to answer',
  );
});

Deno.test('describeRequirement() says "server" once for a server named as one', () => {
  const url = "http://gpu-box:8000/v1";
  const requirement = new ServerRequirement(`OpenAI-compatible server at "${url}"`, () => url);
  assert.equal(
    describeRequirement(requirement),
    'the OpenAI-compatible server at "http://gpu-box:8000/v1" to answer',
  );
});

Deno.test("ServerRequirement is met when a server answers at all", async () => {
  const server = Deno.serve({ port: 0, onListen() {} }, () => new Response("no", { status: 403 }));
  const url = `http://127.0.0.1:${server.addr.port}/`;
  try {
    assert.equal(await new ServerRequirement("test server", () => url).isAvailable(), true);
  } finally {
    await server.shutdown();
  }
  assert.equal(
    await new ServerRequirement("gone", () => url, { timeout: 500 }).isAvailable(),
    false,
  );
});
