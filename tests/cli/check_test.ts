import assert from "node:assert/strict";
import { join } from "node:path";
import { builtinClassPaths, checkCommand, FAMILIES } from "../../cli/check.ts";
import { run } from "../../cli/mod.ts";
import { SvcError } from "../../components/core/errors.ts";
import { Config } from "../../server/config.ts";
import { FakeServer } from "../assistants/_fake_server.ts";
import { denoArgs, run as runProcess } from "../_process.ts";
import { integration } from "../_tier.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const DENO_JSON = new URL("../../deno.json", import.meta.url).pathname;
const DEMO_ASSISTANT = "svc.assistants.SvcDemoAssistant";
const COMPONENTS = new URL("../../components/mod.ts", import.meta.url).href;

function capture() {
  const io = {
    stdout: "",
    stderr: "",
    out: (t: string) => io.stdout += t,
    err: (t: string) => io.stderr += t,
  };
  return io;
}

async function tmpDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "svc_check_test_" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

/** Writes a configuration into a folder; the values are shaped like the TOML file. */
async function writeConfig(dir: string, values: Record<string, unknown> = {}): Promise<string> {
  const path = join(dir, "svc.toml");
  await Config.from({ local_root: dir, ...values }, { env: {}, base: dir }).toFile(path);
  return path;
}

/** The row of a table that names a class path. */
function row(stdout: string, classPath: string): string {
  const line = stdout.split("\n").find((line) => line.includes(`  ${classPath}`));
  assert.ok(line, `no row for ${classPath} in:\n${stdout}`);
  return line;
}

/** `svc` run by `deno run main.ts` in a folder. */
async function spawn(args: string[], cwd: string) {
  return await runProcess(
    Deno.execPath(),
    denoArgs("run", "-A", "--config", DENO_JSON, MAIN, ...args),
    { cwd, env: { SVC_CONFIG: "", NO_COLOR: "1" } },
  );
}

Deno.test("svc check on the demo configuration shows every built-in and exits 0", async () => {
  await using dir = await tmpDir();
  const path = await writeConfig(dir.path);
  const io = capture();
  assert.equal(await run(["check", "-c", path], io, { env: {} }), 0);
  for (const family of FAMILIES) {
    assert.match(io.stdout, new RegExp(`^${family.title}$`, "m"));
    for (const classPath of builtinClassPaths(family)) row(io.stdout, classPath);
  }
  for (const selected of ["svc.source_storages.SvcDemoSourceStorage", DEMO_ASSISTANT]) {
    assert.match(row(io.stdout, selected), /^ {2}✓ {2}Svc\/Demo\w+ +svc\.\S+ +yes$/);
  }
  assert.match(io.stdout, /^Document formats: .*\.pdf/m);
  assert.match(io.stdout, /^Embedder: svc\/hash-v1-512 \(offline, lexical not semantic: .+\)$/m);
  assert.match(io.stdout, /^All selected components are available$/m);
});

Deno.test("svc check reports a sign-in whose settings are missing as an error", async () => {
  const problems: [string, string][] = [
    ["svc.deploy.OpenIDConnectAuthentication", "needs SVC_OIDC_ISSUER and SVC_OIDC_CLIENT_ID"],
    ["svc.deploy.TrustedProxyAuthentication", "trusts no proxy: set SVC_API_TRUSTED_PROXIES"],
  ];
  for (const [authentication, problem] of problems) {
    await using dir = await tmpDir();
    const config = await writeConfig(dir.path, { authentication });
    const io = capture();
    assert.equal(await run(["check", "-c", config], io, { env: {} }), 1, io.stdout);
    assert.ok(io.stdout.includes(`Sign-in: ${authentication}\n  ✗ `), io.stdout);
    assert.ok(io.stdout.includes(problem), io.stdout);
  }
});

Deno.test("svc check reports the demo sign-in on an address other than loopback as an error", async () => {
  await using dir = await tmpDir();
  await using other = await tmpDir();
  const exposed = await writeConfig(dir.path, { api: { hostname: "0.0.0.0" } });
  const io = capture();
  assert.equal(await run(["check", "-c", exposed], io, { env: {} }), 1);
  assert.match(
    io.stdout,
    /^Sign-in: svc\.deploy\.SvcDemoAuthentication\n {2}✗ The demo sign-in \("svc\.deploy\.SvcDemoAuthentication"\) lets anyone who reaches 0\.0\.0\.0:31476 log in as any user/m,
  );
  assert.match(
    io.stdout,
    /^All selected components are available\nThe sign-in cannot be served as configured$/m,
  );

  const password = await writeConfig(other.path, {
    authentication: "svc.deploy.PasswordAuthentication",
    api: { hostname: "0.0.0.0" },
  });
  const fine = capture();
  assert.equal(await run(["check", "-c", password], fine, { env: {} }), 0, fine.stdout);
  assert.match(fine.stdout, /^Sign-in: svc\.deploy\.PasswordAuthentication\n\n/m);
  const allowed = capture();
  const env = { SVC_API_ALLOW_INSECURE_DEMO_SIGN_IN: "true" };
  assert.equal(await run(["check", "-c", exposed], allowed, { env }), 0, allowed.stdout);
});

Deno.test("svc check warns about an unknown SVC_ variable and still checks", async () => {
  await using dir = await tmpDir();
  const path = await writeConfig(dir.path);
  const io = capture();
  const env = { SVC_OLAMA_MODEL: "llama3.2", SVC_OLLAMA_MODEL: "llama3.2" };
  assert.equal(await run(["check", "-c", path], io, { env }), 0);
  assert.equal(
    io.stderr,
    'warning: Unknown environment variable "SVC_OLAMA_MODEL" (did you mean "SVC_OLLAMA_MODEL"?): ' +
      "neither svc nor its built-in components read it\n",
  );
  assert.match(io.stdout, /^All selected components are available$/m);
});

Deno.test("svc check names the embedder the environment chooses, or why it cannot", async () => {
  await using dir = await tmpDir();
  const path = await writeConfig(dir.path);
  const io = capture();
  const env = {
    SVC_EMBEDDING_MODEL: "openai/nomic-embed-text",
    SVC_EMBEDDING_DIMENSION: "768",
    OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
  };
  assert.equal(await run(["check", "-c", path], io, { env }), 0);
  assert.match(io.stdout, /^Embedder: openai\/nomic-embed-text \(semantic, .*127\.0\.0\.1:11434/m);
  const wrong = capture();
  await run(["check", "-c", path], wrong, { env: { SVC_EMBEDDING_MODEL: "word2vec" } });
  assert.match(wrong.stdout, /^Embedder: ✗ Unknown embedding model "word2vec"/m);
});

integration.test("svc check and svc api refuse an embedding model its server does not serve", async () => {
  await using dir = await tmpDir();
  const path = await writeConfig(dir.path);
  await using server = new FakeServer([
    () => Response.json({ data: [{ id: "nomic-embed-text" }, { id: "mxbai-embed-large" }] }),
  ]);
  const env = {
    SVC_EMBEDDING_MODEL: "openai/nomic-embed-txt",
    SVC_EMBEDDING_DIMENSION: "768",
    OPENAI_BASE_URL: `${server.url}/v1`,
  };
  const io = capture();
  assert.equal(await run(["check", "-c", path], io, { env }), 1);
  const problem = 'The embedding model "nomic-embed-txt" (SVC_EMBEDDING_MODEL) is not served by ' +
    `the OpenAI-compatible endpoint ${server.url}/v1; it serves "nomic-embed-text", ` +
    '"mxbai-embed-large"';
  assert.ok(io.stdout.includes(`✗ ${problem}\n`), io.stdout);
  assert.match(io.stdout, /^The embedder cannot run as configured$/m);
  assert.equal(server.last.path, "/v1/models");
  // svc api asks before it serves, and does not start.
  const api = await runProcess(
    Deno.execPath(),
    denoArgs("run", "-A", "--config", DENO_JSON, MAIN, "api", "-c", path),
    { cwd: dir.path, env: { ...env, SVC_CONFIG: "", NO_COLOR: "1" } },
  );
  assert.equal(api.code, 1);
  assert.ok(api.stderr.includes(problem), api.stderr);
});

Deno.test("svc check lines up the columns of both tables", async () => {
  await using dir = await tmpDir();
  const io = capture();
  assert.equal(await run(["check", "-c", await writeConfig(dir.path)], io, { env: {} }), 0);
  const headers = io.stdout.split("\n").filter((line) =>
    /^ +name +class path +selected$/.test(line)
  );
  assert.equal(headers.length, FAMILIES.length);
  assert.equal(new Set(headers).size, 1);
  const column = headers[0]!.indexOf("class path");
  for (const family of FAMILIES) {
    for (const classPath of builtinClassPaths(family)) {
      assert.equal(row(io.stdout, classPath).indexOf(classPath), column);
    }
  }
});

Deno.test("svc check shows an unmet requirement of a selected component and exits 1", async () => {
  await using dir = await tmpDir();
  const variable = `SVC_TEST_NEEDY_KEY_${crypto.randomUUID().replaceAll("-", "").toUpperCase()}`;
  await Deno.writeTextFile(
    join(dir.path, "needy.ts"),
    `import { Assistant, EnvVarRequirement } from ${JSON.stringify(COMPONENTS)};\n` +
      `export class Needy extends Assistant {\n` +
      `  static override requirements = [new EnvVarRequirement(${JSON.stringify(variable)})];\n` +
      `  answer() { return ["never"]; }\n` +
      `}\n`,
  );
  const path = await writeConfig(dir.path, {
    source_storages: ["svc.source_storages.SvcDemoSourceStorage", "./needy.ts#Needy"],
    assistants: [DEMO_ASSISTANT, "./needy.ts#Needy", "./gone.ts#Gone"],
  });
  const io = capture();
  assert.equal(await run(["check", "-c", path], io, { env: {} }), 1);

  const [storages, assistants] = io.stdout.split("\nAssistants\n") as [string, string];
  assert.match(row(assistants, "./needy.ts#Needy"), /^ {2}✗ {2}Needy +\.\/needy\.ts#Needy +yes$/);
  assert.ok(assistants.includes(`✗ environment variable ${variable} is not set`), assistants);
  assert.match(row(assistants, DEMO_ASSISTANT), /^ {2}✓ .* yes$/);
  // A component that cannot be loaded, or is of the other family, is a cross with the reason.
  assert.match(row(assistants, "./gone.ts#Gone"), /^ {2}✗ {2}Gone /);
  assert.match(assistants, /Cannot load "\.\/gone\.ts#Gone"/);
  assert.match(row(storages, "./needy.ts#Needy"), /^ {2}✗ /);
  assert.match(storages, /"\.\/needy\.ts#Needy" is not a subclass of SourceStorage/);
  assert.match(io.stdout, /^3 selected components are not available: "Needy", "Needy", "Gone"$/m);
});

Deno.test("svc check lists requirements for the selected components only", async () => {
  await using dir = await tmpDir();
  const io = capture();
  assert.equal(await run(["check", "-c", await writeConfig(dir.path)], io, { env: {} }), 0);
  // The built-ins that are not selected have a row but no requirement lines.
  assert.doesNotMatch(io.stdout, /OPENAI_API_KEY/);
  assert.equal(io.stdout.match(/needs nothing/g)?.length, 3);
});

Deno.test("svc check without a configuration says to run svc init and exits 1", async () => {
  await using dir = await tmpDir();
  const io = capture();
  let code = 0;
  const command = checkCommand({ io, exit: (c) => code = c, env: {} }, { cwd: dir.path });
  await assert.rejects(
    command.exitOverride().parseAsync([], { from: "user" }),
    (error: Error) =>
      error instanceof SvcError && /^No configuration found.*svc init/.test(error.message),
  );
  assert.equal(code, 0);

  const missing = capture();
  const path = join(dir.path, "missing.toml");
  assert.equal(await run(["check", "-c", path], missing, { env: {} }), 1);
  assert.ok(missing.stderr.includes(`${JSON.stringify(path)}: the file does not exist`));
});

integration.test("main.ts check exits 0 on the demo configuration", async () => {
  await using dir = await tmpDir();
  const path = await writeConfig(dir.path);
  const result = await spawn(["check", "-c", path], dir.path);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^All selected components are available$/m);
  assert.match(result.stdout, /^ {2}✓ {2}Svc\/DemoAssistant /m);
});

integration.test("main.ts check without a configuration exits 1 and says to run svc init", async () => {
  await using dir = await tmpDir();
  const result = await spawn(["check"], dir.path);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /No configuration found.*svc init/);
  assert.equal(result.stdout, "");
});

integration.test("main.ts check exits 1 naming an unknown class path of the configuration", async () => {
  await using dir = await tmpDir();
  const path = join(dir.path, "svc.toml");
  await Deno.writeTextFile(path, 'assistants = ["svc.assistants.NoSuchAssistant"]\n');
  const result = await spawn(["check", "-c", path], dir.path);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /Unknown class path "svc\.assistants\.NoSuchAssistant"/);
});

Deno.test("svc check names the models a local Ollama server offers, or that none answers", async () => {
  await using dir = await tmpDir();
  const path = await writeConfig(dir.path);
  await using server = new FakeServer([() =>
    Response.json({
      models: [
        { name: "llama3.2:latest", details: { family: "llama" } },
        { name: "nomic-embed-text:latest", details: { family: "nomic-bert" } },
      ],
    })]);
  const io = capture();
  assert.equal(await run(["check", "-c", path], io, { env: { OLLAMA_HOST: server.url } }), 0);
  assert.ok(
    io.stdout.includes(
      `Local models: Ollama at "${server.url}"\n  offered as assistants: "Ollama/llama3.2"\n` +
        '  embedding models: "nomic-embed-text"; to embed with one, set ' +
        `SVC_EMBEDDING_MODEL=openai/nomic-embed-text and OPENAI_BASE_URL=${server.url}/v1\n`,
    ),
    io.stdout,
  );
  const none = capture();
  await run(["check", "-c", path], none, { env: { OLLAMA_HOST: "127.0.0.1:9" } });
  assert.match(
    none.stdout,
    /^Local models: no Ollama server answers at "http:\/\/127\.0\.0\.1:9"$/m,
  );
});
