import assert from "node:assert/strict";
import { LocalDocument } from "../../components/core/document.ts";
import { SvcError } from "../../components/core/errors.ts";
import { SvcDemoAuthentication } from "../../server/auth/demo.ts";
import { loadComponents } from "../../server/components.ts";
import { Config } from "../../server/config.ts";
import { tmpDir, writeFile } from "../test_utils.ts";

const KEY = `SVC_TEST_UNSET_${crypto.randomUUID().replaceAll("-", "").toUpperCase()}`;

async function configWithNeedy(dir: string, assistants: string[]) {
  await writeFile(
    dir,
    "needy.ts",
    `import { Assistant } from "${import.meta.resolve("../../components/core/component.ts")}";
     import { EnvVarRequirement } from "${
      import.meta.resolve("../../components/core/requirements.ts")
    }";
     export class Needy extends Assistant {
       static requirements = [new EnvVarRequirement("${KEY}")];
       *answer() { yield "x"; }
     }`,
  );
  return Config.from({ local_root: dir, assistants }, { base: dir, env: {} });
}

Deno.test("loadComponents() skips an unavailable component when told to, with a warning", async () => {
  await using dir = await tmpDir();
  const config = await configWithNeedy(dir.path, [
    "svc.assistants.SvcDemoAssistant",
    "./needy.ts#Needy",
  ]);
  const warnings: string[] = [];
  const loaded = await loadComponents(config, {
    ignoreUnavailable: true,
    warn: (w) => warnings.push(w),
  });
  assert.deepEqual(loaded.assistants.map((a) => a.displayName), ["Svc/DemoAssistant"]);
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0]!,
    new RegExp(`Ignoring "./needy.ts#Needy": .*environment variable ${KEY}`),
  );
  assert.ok(loaded.authentication instanceof SvcDemoAuthentication);
});

Deno.test("loadComponents() refuses an unavailable component, naming what it needs", async () => {
  await using dir = await tmpDir();
  const config = await configWithNeedy(dir.path, [
    "svc.assistants.SvcDemoAssistant",
    "./needy.ts#Needy",
  ]);
  await assert.rejects(
    loadComponents(config),
    (e) =>
      e instanceof SvcError &&
      e.message.includes(`"Needy" is not available: it needs the environment variable ${KEY}`),
  );
});

Deno.test("loadComponents() refuses a family left without any available component", async () => {
  await using dir = await tmpDir();
  const config = await configWithNeedy(dir.path, ["./needy.ts#Needy"]);
  await assert.rejects(
    loadComponents(config, { ignoreUnavailable: true }),
    /No assistant is available: "\.\/needy\.ts#Needy" cannot run here/,
  );
});

Deno.test("loadComponents() refuses two components with one display name", async () => {
  await using dir = await tmpDir();
  await writeFile(
    dir.path,
    "twin.ts",
    `import { SvcDemoAssistant } from "${
      import.meta.resolve("../../components/assistants/demo.ts")
    }";
     export class Twin extends SvcDemoAssistant {}`,
  );
  const config = Config.from(
    { local_root: dir.path, assistants: ["svc.assistants.SvcDemoAssistant", "./twin.ts#Twin"] },
    { base: dir.path, env: {} },
  );
  await assert.rejects(loadComponents(config), /Two assistants are called "Svc\/DemoAssistant"/);
});

Deno.test("loadComponents() loads the configured document class, and refuses one that is no Document", async () => {
  await using dir = await tmpDir();
  const loaded = await loadComponents(
    Config.from({ local_root: dir.path }, { base: dir.path, env: {} }),
  );
  assert.equal(loaded.document, LocalDocument);
  await writeFile(
    dir.path,
    "notes.ts",
    `import { LocalDocument } from "${import.meta.resolve("../../components/core/document.ts")}";
     export class Notes extends LocalDocument {}
     export class NotADocument {}`,
  );
  const own = (document: string) =>
    Config.from({ local_root: dir.path, document }, { base: dir.path, env: {} });
  assert.equal((await loadComponents(own("./notes.ts#Notes"))).document.name, "Notes");
  await assert.rejects(
    loadComponents(own("./notes.ts#NotADocument")),
    (error) =>
      error instanceof SvcError && error.status === 422 &&
      error.message === '"./notes.ts#NotADocument" is not a subclass of Document',
  );
});

Deno.test("loadComponents() offers the text models of a local Ollama server after the configured assistants", async () => {
  await using dir = await tmpDir();
  const stop = new AbortController();
  const ollama = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    (request) =>
      new URL(request.url).pathname === "/api/tags"
        ? Response.json({
          models: [
            { name: "llama3.2:latest", details: { family: "llama" } },
            { name: "qwen2.5:7b", details: { family: "qwen2" } },
            { name: "nomic-embed-text:latest", details: { family: "nomic-bert" } },
          ],
        })
        : new Response("Ollama is running"),
  );
  const config = Config.from({
    local_root: dir.path,
    assistants: ["svc.assistants.Extractive", "svc.assistants.SvcDemoAssistant"],
  }, { base: dir.path, env: {} });
  try {
    {
      const env = { OLLAMA_HOST: `127.0.0.1:${ollama.addr.port}` };
      const notices: string[] = [];
      const { assistants } = await loadComponents(config, {
        notice: (n) => notices.push(n),
        env,
      });
      assert.deepEqual(assistants.map((assistant) => assistant.displayName), [
        "Extractive",
        "Svc/DemoAssistant",
        "Ollama/llama3.2",
        "Ollama/qwen2.5:7b",
      ]);
      assert.deepEqual(notices, [
        `Offering the models of Ollama at http://127.0.0.1:${ollama.addr.port} as assistants: ` +
        '"Ollama/llama3.2", "Ollama/qwen2.5:7b"',
      ]);
      // Turned off, it offers none.
      const off = await loadComponents(config, {
        env: { ...env, SVC_OLLAMA_OFFER_MODELS: "false" },
      });
      assert.equal(off.assistants.length, 2);
    }
  } finally {
    stop.abort();
    await ollama.finished;
  }
});
