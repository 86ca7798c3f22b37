/**
 * `deploy/compose.yaml`, read as Compose reads it (there is no container
 * engine here to run it): it builds svc from the repository's Containerfile,
 * runs commands that svc has with variables svc knows, pins the images it
 * takes from elsewhere, mounts only files of `deploy/`, and its database URL,
 * ports and HAProxy's backends agree with each other and with the image's
 * configuration.
 * @module
 */
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { parse } from "npm:yaml@2.9.1";
import { parse as parseToml } from "smol-toml";
import { knownEnvVariables } from "../../server/config_env.ts";
import { denoArgs, MAIN, REPOSITORY, run } from "../_process.ts";
import { integration } from "../_tier.ts";

const DEPLOY = join(REPOSITORY, "deploy");
const COMPOSE = join(DEPLOY, "compose.yaml");

// deno-lint-ignore no-explicit-any
type Json = any;

const compose: Json = parse(await Deno.readTextFile(COMPOSE));
const services: Record<string, Json> = compose.services;
const imageConfig: Json = parseToml(await Deno.readTextFile(join(DEPLOY, "svc.container.toml")));

/** The services built from the repository, by name. */
function built(): [string, Json][] {
  return Object.entries(services).filter(([, service]) => service.build !== undefined);
}

Deno.test("compose.yaml runs PostgreSQL, svc replicas and a load balancer", () => {
  assert.deepEqual(Object.keys(services).sort(), ["haproxy", "postgres", "svc"]);
  assert.ok(services.svc.deploy.replicas >= 2, "more than one replica");
  assert.deepEqual(Object.keys(compose.volumes), ["postgres"]);
});

Deno.test("compose.yaml builds svc from the repository's Containerfile and pins every other image", async () => {
  assert.deepEqual(built().map(([name]) => name), ["svc"]);
  for (const [, service] of built()) {
    const context = resolve(dirname(COMPOSE), service.build.context);
    assert.equal(context, resolve(REPOSITORY));
    assert.ok((await Deno.stat(join(context, service.build.dockerfile))).isFile);
    assert.match(service.image, /^localhost\//, "the image built here is named as a local one");
  }
  for (const [name, service] of Object.entries(services)) {
    if (service.build !== undefined) continue;
    assert.match(
      service.image,
      /^docker\.io\/library\/(postgres|haproxy):\d+(\.\d+)*-bookworm$/,
      `${name}: an official image, at a pinned major version, on the Debian of the svc image`,
    );
  }
});

integration.test("compose.yaml runs only svc commands that exist, with variables svc knows", async () => {
  const known = new Set(knownEnvVariables());
  for (const [name, service] of built()) {
    const [command, ...args] = service.command as string[];
    const help = await run(Deno.execPath(), denoArgs("run", "-A", MAIN, command!, "--help"));
    assert.equal(help.code, 0, `${name}: svc ${command}: ${help.stderr}`);
    for (const arg of args.filter((arg) => arg.startsWith("--"))) {
      assert.ok(help.stdout.includes(arg), `${name}: svc ${command} has no option ${arg}`);
    }
    for (const variable of Object.keys(service.environment)) {
      assert.ok(known.has(variable), `${name}: svc does not read ${variable}`);
    }
    assert.deepEqual(JSON.parse(service.environment.SVC_SOURCE_STORAGES), [
      "svc.source_storages.Postgres",
    ]);
  }
});

Deno.test("compose.yaml's database URL is its PostgreSQL service's, user and database alike", () => {
  const url = new URL(services.svc.environment.SVC_API_DATABASE_URL);
  const postgres = services.postgres.environment;
  assert.equal(url.protocol, "postgresql:");
  assert.equal(url.hostname, "postgres");
  assert.equal(url.username, postgres.POSTGRES_USER);
  assert.equal(url.pathname, `/${postgres.POSTGRES_DB}`);
  assert.equal(decodeURIComponent(url.password), "${SVC_POSTGRES_PASSWORD}");
  assert.match(
    postgres.POSTGRES_PASSWORD,
    /^\$\{SVC_POSTGRES_PASSWORD:\?/,
    "required, not defaulted",
  );
  assert.deepEqual(services.svc.depends_on.postgres, { condition: "service_healthy" });
});

Deno.test("compose.yaml mounts only files of deploy/, and HAProxy reaches the replicas' ports", async () => {
  for (const [name, service] of Object.entries(services)) {
    for (const volume of (service.volumes ?? []) as string[]) {
      const [source] = volume.split(":");
      if (!source!.startsWith(".")) {
        assert.ok(source! in compose.volumes, `${name}: the volume ${source} is declared`);
        continue;
      }
      const path = resolve(DEPLOY, source!);
      assert.ok(path.startsWith(DEPLOY), `${name}: ${source} is in deploy/`);
      assert.ok((await Deno.stat(path)).isFile, `${name}: ${source} exists`);
    }
  }
  const config = await Deno.readTextFile(join(DEPLOY, "haproxy.cfg"));
  const servers = [...config.matchAll(/^\s*server-template \S+ \d+ (\S+):(\d+) /gm)]
    .map(([, host, port]) => `${host}:${port}`).sort();
  const { api, ui } = imageConfig;
  assert.deepEqual(servers, [`svc:${api.port}`, `svc:${ui.port}`]);
  const binds = [...config.matchAll(/^\s*bind :(\d+)$/gm)].map(([, port]) => Number(port)).sort();
  assert.deepEqual(binds, [api.port, ui.port]);
  assert.deepEqual(services.haproxy.ports, [`${api.port}:${api.port}`, `${ui.port}:${ui.port}`]);
  assert.match(config, /option httpchk GET \/health/);
  assert.equal(
    new URL(api.url).port,
    String(api.port),
    "the browser reaches the API through HAProxy",
  );
});
