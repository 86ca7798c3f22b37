import assert from "node:assert/strict";
import { join } from "node:path";
import { CLASS_PATHS } from "../../components/class_paths.ts";
import type { Requirement } from "../../components/core/requirements.ts";
import { unknownEnvWarnings } from "../../server/config_env.ts";
import { knownEnvVariables, SETTINGS, settingsTable } from "../../server/settings.ts";

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
  assert.deepEqual([...unknown], [], "add these to SETTINGS in server/settings.ts");
  assert.ok(known.has("SVC_SHUTDOWN_TIMEOUT") && known.has("SVC_API_PORT"));
});

Deno.test("SETTINGS declares each variable once, with a type, a default and a meaning", () => {
  const names = knownEnvVariables();
  assert.deepEqual(names.filter((name, i) => names.indexOf(name) !== i), []);
  for (const setting of SETTINGS) {
    for (const field of ["type", "default", "description"] as const) {
      assert.ok(setting[field].trim() !== "", `${setting.env} has a ${field}`);
    }
  }
  assert.equal(SETTINGS.find((setting) => setting.key === "api.port")?.env, "SVC_API_PORT");
});

Deno.test("settingsTable() renders one row a setting, its cells kept whole", () => {
  const rows = settingsTable().split("\n");
  assert.equal(rows.length, SETTINGS.length + 2);
  assert.equal(
    rows.find((row) => row.startsWith("| `SVC_API_BODY_TIMEOUT` ")),
    "| `SVC_API_BODY_TIMEOUT` |  | seconds | `30` | how long any request body may send nothing | svc |",
  );
  const table = settingsTable([{
    env: "SVC_X",
    type: "a | b",
    default: "none",
    description: "one",
    reader: "svc",
  }]);
  assert.equal(table.split("\n")[2], "| `SVC_X` |  | a \\| b | none | one | svc |");
});

Deno.test("knownEnvVariables() holds the variables the built-in components read, not only svc's", async () => {
  const known = new Set(knownEnvVariables());
  for (const name of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST", "LANCE_CPU_THREADS"]) {
    assert.ok(known.has(name), name);
  }
  const own = ["USER", "USERNAME", "HOME"];
  for await (const path of sources("components")) {
    const text = await Deno.readTextFile(join(ROOT, path));
    const reads = text.matchAll(/(?:envVar|env\.get)\("([A-Z][A-Z0-9_]*)"\)/g);
    for (const [, name] of reads) {
      if (!own.includes(name!)) assert.ok(known.has(name!), `${name} (${path})`);
    }
  }
});

Deno.test("knownEnvVariables() holds every variable a built-in component requires", async () => {
  const known = new Set(knownEnvVariables());
  const required = new Set<string>();
  for (const classPath of CLASS_PATHS.classPaths()) {
    const component = await CLASS_PATHS.load(classPath) as { requirements?: Requirement[] };
    for (const requirement of component.requirements ?? []) {
      if (requirement.kind !== "env") continue;
      for (const name of requirement.name.split(" or ")) required.add(name);
    }
  }
  assert.ok(required.has("ANTHROPIC_API_KEY") && required.has("GEMINI_API_KEY"));
  assert.deepEqual([...required].filter((name) => !known.has(name)), []);
});
