import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { homedir } from "node:os";
import { parse } from "smol-toml";
import { SvcError } from "../../components/core/errors.ts";
import { register } from "../../components/registry.ts";
import { Config, findConfigPath, withLocalhostTwins } from "../../server/config.ts";
import { tmpDir, writeFile } from "../test_utils.ts";

/** The problems of a refused configuration, one a line, without the heading. */
function problems(make: () => unknown): string[] {
  try {
    make();
  } catch (error) {
    assert.ok(error instanceof SvcError, String(error));
    const [heading, ...lines] = error.message.split("\n");
    assert.match(heading!, /^Cannot use the configuration( ".*")?:$/);
    return lines.map((line) => line.replace(/^- /, ""));
  }
  throw new assert.AssertionError({ message: "the configuration was accepted" });
}

function refused(values: Record<string, unknown>, env: Record<string, string> = {}): string[] {
  return problems(() => Config.from(values, { env }));
}

Deno.test("Config takes local_root from env SVC_LOCAL_ROOT", async () => {
  await using dir = await tmpDir();
  const config = Config.from({}, { env: { SVC_LOCAL_ROOT: dir.path } });
  assert.equal(config.localRoot, dir.path);
});

Deno.test("Config takes the hosts from env SVC_API_HOSTNAME and SVC_UI_HOSTNAME", () => {
  const config = Config.from({}, {
    env: { SVC_API_HOSTNAME: "0.0.0.0", SVC_UI_HOSTNAME: "192.168.0.7" },
  });
  assert.equal(config.api.hostname, "0.0.0.0");
  assert.equal(config.ui.hostname, "192.168.0.7");
});

Deno.test("Config prefers an environment variable to the file", async () => {
  await using dir = await tmpDir();
  const path = await writeFile(dir.path, "svc.toml", `local_root = "${dir.path}/config_file"\n`);
  const env = { SVC_LOCAL_ROOT: `${dir.path}/env_var` };
  assert.equal((await Config.fromFile(path, { env })).localRoot, `${dir.path}/env_var`);
  assert.equal((await Config.fromFile(path, { env: {} })).localRoot, `${dir.path}/config_file`);
});

Deno.test("Config has the documented defaults", () => {
  const config = Config.from({ local_root: "/srv/svc" }, { env: {} });
  assert.equal(config.authentication, "svc.deploy.SvcDemoAuthentication");
  assert.equal(config.document, "svc.core.LocalDocument");
  assert.deepEqual(config.sourceStorages, [
    "svc.source_storages.LibSQL",
    "svc.source_storages.SvcDemoSourceStorage",
  ]);
  assert.deepEqual(config.assistants, [
    "svc.assistants.Extractive",
    "svc.assistants.SvcDemoAssistant",
  ]);
  assert.deepEqual(config.api, {
    hostname: "127.0.0.1",
    port: 31476,
    rootPath: "",
    url: "http://127.0.0.1:31476",
    origins: ["http://127.0.0.1:31477"],
    databaseUrl: "sqlite:////srv/svc/svc.db",
    allowInsecureDemoSignIn: false,
  });
  assert.deepEqual(config.ui, {
    hostname: "127.0.0.1",
    port: 31477,
    origins: ["http://127.0.0.1:31477"],
  });
});

Deno.test("Config puts the default database in the local root", async () => {
  await using dir = await tmpDir();
  const config = Config.from({}, { env: { SVC_LOCAL_ROOT: dir.path } });
  assert.match(config.api.databaseUrl, /^sqlite:\/\/\/\//);
  assert.equal(dirname(config.api.databaseUrl.slice("sqlite:///".length)), config.localRoot);
});

Deno.test("Config derives the default origins from the UI host and port", () => {
  const config = Config.from({ ui: { hostname: "0.0.0.0", port: 80 } }, { env: {} });
  assert.deepEqual(config.api.origins, ["http://0.0.0.0:80"]);
  assert.deepEqual(config.ui.origins, ["http://0.0.0.0:80"]);
});

Deno.test("Config derives computed defaults from the final values, env included", () => {
  const config = Config.from({ api: { root_path: "/svc" }, ui: { port: 8080 } }, {
    env: { SVC_API_PORT: "9000", SVC_UI_HOSTNAME: "localhost", SVC_LOCAL_ROOT: "/env/root" },
  });
  assert.equal(config.api.url, "http://127.0.0.1:9000/svc");
  assert.deepEqual(config.api.origins, ["http://localhost:8080"]);
  assert.equal(config.api.databaseUrl, "sqlite:////env/root/svc.db");
  const ipv6 = Config.from({ api: { hostname: "::1" } }, { env: {} });
  assert.equal(ipv6.api.url, "http://[::1]:31476");
});

Deno.test("Config reads lists from env as JSON", () => {
  const config = Config.from({}, {
    env: {
      SVC_ASSISTANTS: '["svc.assistants.SvcDemoAssistant", "./mine.ts#Mine"]',
      SVC_API_ORIGINS: '["https://rag.example.com"]',
    },
  });
  assert.deepEqual(config.assistants, ["svc.assistants.SvcDemoAssistant", "./mine.ts#Mine"]);
  assert.deepEqual(config.api.origins, ["https://rag.example.com"]);
});

Deno.test("Config refuses a bad list or port in env, naming the variable", () => {
  assert.deepEqual(
    refused({}, { SVC_ASSISTANTS: "svc.assistants.SvcDemoAssistant", SVC_UI_PORT: "80a" }),
    [
      '"assistants" from env SVC_ASSISTANTS must be a JSON list such as ' +
      '["svc.assistants.SvcDemoAssistant"], not "svc.assistants.SvcDemoAssistant"',
      '"ui.port" from env SVC_UI_PORT must be an integer from 1 to 65535, not "80a"',
    ],
  );
  assert.deepEqual(refused({}, { SVC_API_ORIGINS: '"http://a"' }), [
    '"api.origins" from env SVC_API_ORIGINS must be a list, not "http://a"',
  ]);
});

Deno.test("Config ignores env variables that are not configuration keys", () => {
  const config = Config.from({}, {
    env: {
      SVC_CONFIG: "elsewhere.toml",
      SVC_API_DOCUMENT_UPLOAD_SECRET: "s",
      SVC_API_MAX_UPLOAD_SIZE: "1",
      SVC_API_DATABASE_AUTH_TOKEN: "t",
      SVC_DEMO_AUTHENTICATION_PASSWORD: "p",
    },
  });
  assert.equal(config.api.port, 31476);
});

Deno.test("Config.fromFile() resolves relative paths against the file's folder", async () => {
  await using dir = await tmpDir();
  await Deno.mkdir(join(dir.path, "conf"));
  const path = await writeFile(
    join(dir.path, "conf"),
    "svc.toml",
    [
      'local_root = "data"',
      'assistants = ["./mine.ts#Mine"]',
      "[api]",
      'database_url = "sqlite:///db/svc.db"',
    ].join("\n"),
  );
  const config = await Config.fromFile(path, { env: {} });
  assert.equal(config.localRoot, join(dir.path, "conf", "data"));
  assert.equal(config.api.databaseUrl, `sqlite:///${join(dir.path, "conf", "db", "svc.db")}`);
  assert.deepEqual(config.assistants, ["./mine.ts#Mine"]);
  assert.equal(config.base, join(dir.path, "conf"));
});

Deno.test("Config keeps in-memory, absolute and remote database URLs", () => {
  for (const url of ["sqlite://", "sqlite:////var/svc.db", "libsql://db.example.com", "wss://x"]) {
    assert.equal(Config.from({ api: { database_url: url } }, { env: {} }).api.databaseUrl, url);
  }
});

Deno.test("Config expands ~ in local_root", () => {
  const config = Config.from({ local_root: "~/svc" }, { env: {} });
  assert.equal(config.localRoot, join(homedir(), "svc"));
});

Deno.test("Config.fromFile() names a missing file", async () => {
  await using dir = await tmpDir();
  const path = join(dir.path, "missing.toml");
  await assert.rejects(
    Config.fromFile(path, { env: {} }),
    new SvcError(`Cannot read the configuration "${path}": the file does not exist`),
  );
});

Deno.test("Config.fromFile() names the line and column of a TOML syntax error", async () => {
  await using dir = await tmpDir();
  const path = await writeFile(dir.path, "svc.toml", 'local_root = "x"\n[api\nport = 1\n');
  await assert.rejects(
    Config.fromFile(path, { env: {} }),
    new SvcError(
      `Cannot read the configuration "${path}": invalid TOML at line 2, column 5: ` +
        "illegal character in key",
    ),
  );
});

Deno.test("Config.fromFile() refuses an integer too large as a wrong type", async () => {
  await using dir = await tmpDir();
  const path = await writeFile(dir.path, "svc.toml", "[api]\nport = 99999999999999999999\n");
  await assert.rejects(
    Config.fromFile(path, { env: {} }),
    new SvcError(
      `Cannot use the configuration "${path}":\n` +
        '- "api.port" must be an integer from 1 to 65535, not 99999999999999999999',
    ),
  );
});

Deno.test("Config refuses removed options, saying what replaced them", () => {
  assert.deepEqual(
    refused({
      local_cache_root: "/x",
      core: { queue_url: "memory" },
      queue_url: "redis://x",
      api: { upload_token_secret: "s", upload_token_ttl: 30, database_url: "memory" },
      ui: { url: "http://x" },
    }),
    [
      '"local_cache_root" was removed: use "local_root"',
      '"core" was removed: its options moved to the top level',
      '"queue_url" was removed: it went with the task queue; answers are computed by "svc api"',
      '"api.upload_token_secret" was removed: ' +
      "set the secret in env SVC_API_DOCUMENT_UPLOAD_SECRET instead",
      '"api.upload_token_ttl" was removed: an upload token lives for a fixed 5 minutes',
      '"ui.url" was removed: the web UI talks to the API at "api.url"',
      '"api.database_url" = "memory" was removed: use "sqlite://" for an in-memory database',
    ],
  );
});

Deno.test("Config refuses unknown keys, suggesting the closest known one", () => {
  assert.deepEqual(
    refused({ api: { prot: 1, auth: {} }, apps: {}, hostname: "x", colour: "blue" }),
    [
      'Unknown key "api.prot" (did you mean "api.port"?)',
      'Unknown key "api.auth"',
      'Unknown key "apps" (did you mean "api"?)',
      'Unknown key "hostname" (did you mean "api.hostname"?)',
      'Unknown key "colour"',
    ],
  );
});

Deno.test("Config refuses wrong types, naming the key and the value", () => {
  assert.deepEqual(
    refused({
      local_root: 3,
      document: "",
      source_storages: "svc.source_storages.SvcDemoSourceStorage",
      api: {
        hostname: "",
        port: "abc",
        root_path: "svc/",
        url: "localhost:31476",
        origins: ["http://ok", 3, "*"],
        database_url: 7,
      },
      ui: { port: 70000 },
    }),
    [
      '"local_root" must be a path, not 3',
      '"document" must be a class path such as "svc.core.LocalDocument", not ""',
      '"source_storages" must be a list, not "svc.source_storages.SvcDemoSourceStorage"',
      '"api.hostname" must be a host such as "127.0.0.1", not ""',
      '"api.port" must be an integer from 1 to 65535, not "abc"',
      '"api.root_path" must be "" or a path that starts with "/" and does not end with one, ' +
      'such as "/svc", not "svc/"',
      '"api.url" must be an http or https URL, not "localhost:31476"',
      '"api.database_url" must be a URL such as "sqlite:///svc.db", not 7',
      '"api.origins" must be a list of origins, but it lists 3',
      '"api.origins" lists "*", which is not an http or https origin',
      '"ui.port" must be an integer from 1 to 65535, not 70000',
    ],
  );
  assert.deepEqual(refused({ api: 31476 }), ['"api" must be a table, not 31476']);
});

Deno.test("Config refuses unknown class paths, listing the built-ins of the family", () => {
  const lines = refused({
    authentication: "svc.deploy.NoAuth",
    document: "svc.assistants.SvcDemoAssistant",
    source_storages: ["svc.source_storages.SvcDemoSourceStorag"],
    assistants: ["Gpt4"],
  });
  assert.equal(lines.length, 4);
  assert.equal(
    lines[0],
    'Unknown class path "svc.deploy.NoAuth" in "authentication": the built-in ones are ' +
      "svc.deploy.OpenIDConnectAuthentication, svc.deploy.PasswordAuthentication, " +
      "svc.deploy.SvcDemoAuthentication, " +
      "svc.deploy.TrustedProxyAuthentication, and your own are " +
      'named like "./module.ts#Export"',
  );
  assert.equal(
    lines[1],
    'Unknown class path "svc.assistants.SvcDemoAssistant" in "document": the built-in ones are ' +
      'svc.core.LocalDocument, and your own are named like "./module.ts#Export"',
  );
  assert.match(
    lines[2]!,
    /^Unknown class path "svc.source_storages.SvcDemoSourceStorag" in "source_storages" \(did you mean "svc.source_storages.SvcDemoSourceStorage"\?\): the built-in ones are .*svc.source_storages.SvcDemoSourceStorage/,
  );
  assert.match(lines[3]!, /^Unknown class path "Gpt4" in "assistants": the built-in ones are /);
  assert.match(lines[3]!, /svc\.assistants\.SvcDemoAssistant/);
  assert.doesNotMatch(lines[3]!, /svc\.source_storages\./);
});

Deno.test("Config accepts an authentication registered under svc.deploy", () => {
  class ConfigTestAuthentication {}
  register("svc.deploy", { ConfigTestAuthentication });
  const authentication = "svc.deploy.ConfigTestAuthentication";
  assert.equal(Config.from({ authentication }, { env: {} }).authentication, authentication);
});

Deno.test("Config refuses empty and repeated component lists", () => {
  assert.deepEqual(
    refused({ source_storages: [], assistants: ["./a.ts#A", "./a.ts#A"] }),
    [
      '"source_storages" must list at least one class path, not []',
      '"assistants" lists "./a.ts#A" twice',
    ],
  );
});

Deno.test("Config refuses an unsupported or malformed database URL by name", () => {
  assert.deepEqual(refused({ api: { database_url: "mysql://db/svc" } }), [
    '"api.database_url" has the unsupported scheme "mysql": ' +
    "use sqlite, libsql, http, https, ws, wss or postgresql",
  ]);
  for (const url of ["postgresql://db/svc", "postgres://svc@db:5432/svc"]) {
    assert.equal(Config.from({ api: { database_url: url } }, { env: {} }).api.databaseUrl, url);
  }
  assert.deepEqual(refused({ api: { database_url: "sqlite://svc.db" } }), [
    '"api.database_url" must be "sqlite://" (in memory), "sqlite:///relative/path" or ' +
    '"sqlite:////absolute/path", not "sqlite://svc.db"',
  ]);
});

Deno.test("Config.fromFile() reports every problem of the file at once", async () => {
  await using dir = await tmpDir();
  const path = await writeFile(dir.path, "svc.toml", '[api]\nport = "abc"\nprot = 1\n');
  await assert.rejects(
    Config.fromFile(path, { env: {} }),
    new SvcError(
      `Cannot use the configuration "${path}":\n` +
        '- Unknown key "api.prot" (did you mean "api.port"?)\n' +
        '- "api.port" must be an integer from 1 to 65535, not "abc"',
    ),
  );
});

Deno.test("Config.toToml() writes every key in order and reads back as the same", async () => {
  await using dir = await tmpDir();
  const config = Config.from({
    local_root: dir.path,
    assistants: ["svc.assistants.SvcDemoAssistant", "./mine.ts#Mine"],
    api: { hostname: "0.0.0.0", port: 8000, root_path: "/svc", database_url: "sqlite://" },
    ui: { origins: ["http://localhost:3000", "https://rag.example.com"] },
  }, { env: {}, base: dir.path });
  const toml = config.toToml();
  const again = Config.from(parse(toml), { env: {}, base: dir.path });
  assert.deepEqual(again, config);
  assert.equal(again.api.url, "http://0.0.0.0:8000/svc");
  const keys = [...toml.matchAll(/^(\[?[a-z_]+)/gm)].map((match) => match[1]);
  assert.deepEqual(keys, [
    "local_root",
    "authentication",
    "document",
    "source_storages",
    "assistants",
    "[api",
    "hostname",
    "port",
    "root_path",
    "url",
    "database_url",
    "origins",
    "allow_insecure_demo_sign_in",
    "[ui",
    "hostname",
    "port",
    "origins",
  ]);
});

Deno.test("Config.toFile() refuses an existing file unless forced", async () => {
  await using dir = await tmpDir();
  const path = await writeFile(dir.path, "svc.toml", "# mine\n");
  const config = Config.from({ local_root: join(dir.path, "root") }, { env: {} });
  await assert.rejects(
    config.toFile(path),
    new SvcError(`Cannot write "${path}": it exists already (use --force to overwrite)`),
  );
  assert.equal(await Deno.readTextFile(path), "# mine\n");
  await config.toFile(path, { force: true });
  const again = await Config.fromFile(path, { env: {} });
  assert.equal(again.localRoot, config.localRoot);
  assert.deepEqual({ ...again, base: "" }, { ...config, base: "" });
});

Deno.test("Config.toFile() writes a new file, creating its folder", async () => {
  await using dir = await tmpDir();
  const path = join(dir.path, "new", "svc.toml");
  await Config.from({}, { env: {} }).toFile(path);
  assert.equal((await Config.fromFile(path, { env: {} })).api.port, 31476);
});

Deno.test("withLocalhostTwins() adds the localhost twin of 127.0.0.1 and the other way round", () => {
  assert.deepEqual(
    withLocalhostTwins([
      "http://127.0.0.1:31477",
      "https://localhost:8443/app",
      "http://localhost:31477",
      "https://rag.example.com",
      "http://127.0.0.10:1",
    ]),
    [
      "http://127.0.0.1:31477",
      "http://localhost:31477",
      "https://localhost:8443/app",
      "https://127.0.0.1:8443/app",
      "https://rag.example.com",
      "http://127.0.0.10:1",
    ],
  );
  assert.deepEqual(withLocalhostTwins(["http://localhost"]), [
    "http://localhost",
    "http://127.0.0.1",
  ]);
});

Deno.test("findConfigPath() takes --config, then SVC_CONFIG, then ./svc.toml", async () => {
  await using dir = await tmpDir();
  const cwd = dir.path;
  const given = await writeFile(cwd, "given.toml", "");
  const fromEnv = await writeFile(cwd, "env.toml", "");
  const env = { SVC_CONFIG: "env.toml" };
  assert.equal(findConfigPath({ config: "given.toml", env, cwd }), given);
  assert.equal(findConfigPath({ env, cwd }), fromEnv);
  assert.throws(
    () => findConfigPath({ env: {}, cwd }),
    new SvcError(
      'No configuration found: pass --config FILE, set SVC_CONFIG, or run "svc init" to write svc.toml',
    ),
  );
  const fallback = await writeFile(cwd, "svc.toml", "");
  assert.equal(findConfigPath({ env: {}, cwd }), fallback);
  assert.equal(findConfigPath({ env: { SVC_CONFIG: "" }, cwd }), fallback);
});

Deno.test("findConfigPath() names a given file that does not exist", async () => {
  await using dir = await tmpDir();
  const cwd = dir.path;
  assert.throws(
    () => findConfigPath({ config: "nope.toml", env: {}, cwd }),
    new SvcError(`Cannot read the configuration "${cwd}/nope.toml": the file does not exist`),
  );
  assert.throws(
    () => findConfigPath({ env: { SVC_CONFIG: "/nowhere/svc.toml" }, cwd }),
    new SvcError('Cannot read the configuration "/nowhere/svc.toml": the file does not exist'),
  );
  assert.throws(
    () => findConfigPath({ config: "svc.toml", env: {}, cwd }),
    new SvcError(
      `Cannot read the configuration "${cwd}/svc.toml": the file does not exist; ` +
        'run "svc init" to write it',
    ),
  );
});

Deno.test("Config.toToml({ minimal }) writes only what differs, and reads back the same", () => {
  const config = Config.from(
    { local_root: "/srv/svc", api: { port: 8000 }, ui: { hostname: "0.0.0.0" } },
    { env: {} },
  );
  const text = config.toToml({ minimal: true });
  assert.doesNotMatch(text, /url|origins|database_url|authentication/);
  assert.match(text, /^\[api\]\nport = 8000$/m);
  assert.match(text, /^assistants = /m);
  assert.deepEqual(Config.from(parse(text), { env: {} }), config);
});

Deno.test("Config reads allow_insecure_demo_sign_in from the file and the environment", () => {
  assert.equal(
    Config.from({ api: { allow_insecure_demo_sign_in: true } }, { env: {} }).api
      .allowInsecureDemoSignIn,
    true,
  );
  for (const [value, allowed] of [["true", true], ["1", true], ["yes", true], ["false", false]]) {
    const config = Config.from({}, {
      env: { SVC_API_ALLOW_INSECURE_DEMO_SIGN_IN: value as string },
    });
    assert.equal(config.api.allowInsecureDemoSignIn, allowed, String(value));
  }
  assert.deepEqual(refused({ api: { allow_insecure_demo_sign_in: "yes" } }), [
    '"api.allow_insecure_demo_sign_in" must be true or false, not "yes"',
  ]);
  assert.throws(
    () => Config.from({}, { env: { SVC_API_ALLOW_INSECURE_DEMO_SIGN_IN: "maybe" } }),
    /"api\.allow_insecure_demo_sign_in" from env SVC_API_ALLOW_INSECURE_DEMO_SIGN_IN must be true or false, not "maybe"/,
  );
});

Deno.test("Config.fingerprint() tells configurations apart, but not by their URLs' passwords", async () => {
  const config = (values: Record<string, unknown>) =>
    Config.from(values, { env: {}, base: "/srv" });
  const base = await config({ local_root: "/srv/a" }).fingerprint();
  assert.match(base, /^[0-9a-f]{16}$/);
  assert.equal(await config({ local_root: "/srv/a" }).fingerprint(), base);
  assert.notEqual(await config({ local_root: "/srv/b" }).fingerprint(), base);
  // /health shows it to anyone: a digest of a password would let it be guessed offline.
  const withPassword = (password: string) =>
    config({ api: { database_url: `postgresql://svc:${password}@db/svc` } }).fingerprint();
  assert.equal(await withPassword("one-password"), await withPassword("another-password"));
});
