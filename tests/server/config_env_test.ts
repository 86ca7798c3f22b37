import assert from "node:assert/strict";
import { join } from "node:path";
import { knownEnvVariables, unknownEnvWarnings } from "../../server/config_env.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The .ts and .tsx files under a folder of the repository, generated bundles left out. */
async function* sources(folder: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(join(ROOT, folder))) {
    const path = join(folder, entry.name);
    if (entry.isDirectory && entry.name !== "fixtures") yield* sources(path);
    else if (/\.tsx?$/.test(entry.name) && !/_assets\.ts$/.test(entry.name)) yield path;
  }
}

Deno.test("unknownEnvWarnings() names an unknown SVC_ variable and the known one it resembles", () => {
  assert.deepEqual(unknownEnvWarnings({ SVC_API_PROT: "8000", SVC_OPENAI_MODLE: "gpt-4.1" }), [
    'Unknown environment variable "SVC_API_PROT" (did you mean "SVC_API_PORT"?): ' +
    "neither svc nor its built-in components read it",
    'Unknown environment variable "SVC_OPENAI_MODLE" (did you mean "SVC_OPENAI_MODEL"?): ' +
    "neither svc nor its built-in components read it",
  ]);
  assert.deepEqual(unknownEnvWarnings({ SVC_MY_COMPONENT_URL: "http://x" }), [
    'Unknown environment variable "SVC_MY_COMPONENT_URL": ' +
    "neither svc nor its built-in components read it",
  ]);
});

Deno.test("unknownEnvWarnings() says nothing of known, unset or other variables", () => {
  const env = Object.fromEntries(knownEnvVariables().map((name) => [name, "1"]));
  assert.deepEqual(
    unknownEnvWarnings({ ...env, SVC_NOT_SET: undefined, OPENAI_API_KEY: "k", svc_port: "1" }),
    [],
  );
});

Deno.test("knownEnvVariables() holds every SVC_ variable the code reads", async () => {
  const known = new Set(knownEnvVariables());
  const unknown = new Set<string>();
  for (const folder of ["cli", "components", "server", "ui", "deploy", "bench", "examples"]) {
    for await (const path of sources(folder)) {
      // Its example shows an unknown variable.
      if (path === "server/config_env.ts") continue;
      const text = await Deno.readTextFile(join(ROOT, path));
      for (const [name] of text.matchAll(/\bSVC_[A-Z0-9_]*[A-Z0-9]\b/g)) {
        if (!known.has(name)) unknown.add(`${name} (${path})`);
      }
    }
  }
  // The tests read a few of their own; the variables of their test components are theirs.
  for await (const path of sources("tests")) {
    const text = await Deno.readTextFile(join(ROOT, path));
    for (const [, name] of text.matchAll(/env\.get\("(SVC_[A-Z0-9_]+)"\)/g)) {
      if (!known.has(name!)) unknown.add(`${name} (${path})`);
    }
  }
  assert.deepEqual([...unknown], [], "add these to ENV_VARIABLES in server/config_env.ts");
  assert.ok(known.has("SVC_SHUTDOWN_TIMEOUT") && known.has("SVC_API_PORT"));
});
