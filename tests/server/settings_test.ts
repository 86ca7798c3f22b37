import assert from "node:assert/strict";
import { join } from "node:path";
import { CLASS_PATHS } from "../../components/class_paths.ts";
import type { Requirement } from "../../components/core/requirements.ts";
import {
  knownEnvVariables,
  numberDefault,
  SETTINGS,
  settingsTable,
} from "../../server/settings.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The .ts and .tsx files under a folder of the repository, generated bundles left out. */
async function* sources(folder: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(join(ROOT, folder))) {
    const path = join(folder, entry.name);
    if (entry.isDirectory && entry.name !== "fixtures") yield* sources(path);
    else if (/\.tsx?$/.test(entry.name) && !/_assets\.ts$/.test(entry.name)) yield path;
  }
}

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

/** The code of a module, its comments left out. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

/** The text of each call of `name(...)` in `text`, its parentheses matched. */
function calls(text: string, name: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(new RegExp(`\\b${name}\\(`, "g"))) {
    let depth = 0;
    for (let i = match.index + name.length; i < text.length; i++) {
      if (text[i] === "(") depth++;
      else if (text[i] === ")" && --depth === 0) {
        found.push(text.slice(match.index, i + 1));
        break;
      }
    }
  }
  return found;
}

Deno.test("under server/ and cli/, only settings.ts reads the environment: the rest are given what it read", async () => {
  const reading: string[] = [];
  for (const folder of ["server", "cli"]) {
    for await (const path of sources(folder)) {
      const text = code(await Deno.readTextFile(join(ROOT, path)));
      const reads = /\bDeno\.env\.\w+\(|\bprocess\.env\b|\benvVar\b/.test(text) ||
        calls(text, "envNumber").some((call) => !/\benv\b/.test(call));
      if (reads) reading.push(path);
    }
  }
  assert.deepEqual(reading, ["server/settings.ts"]);
});

Deno.test("a setting whose default is one number shows that number, and the code takes it from there", async () => {
  const numbers = SETTINGS.filter((setting) => setting.value !== undefined);
  assert.ok(numbers.length >= 15);
  for (const setting of numbers) {
    assert.ok(setting.default.startsWith(`\`${setting.value}\``), setting.env);
    assert.equal(numberDefault(setting.env), setting.value);
  }
  const { DEFAULT_BODY_TIMEOUT } = await import("../../server/api/body_timeout.ts");
  const { DEFAULT_SESSION_TTL } = await import("../../server/auth/sessions.ts");
  assert.equal(DEFAULT_BODY_TIMEOUT, numberDefault("SVC_API_BODY_TIMEOUT"));
  assert.equal(DEFAULT_SESSION_TTL, 7 * 24 * 60 * 60);
  assert.throws(() => numberDefault("SVC_OIDC_ISSUER"), /No number is declared as the default/);
});
