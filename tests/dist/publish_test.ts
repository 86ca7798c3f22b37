/**
 * The JSR package: `deno publish --dry-run` passes (type check, no slow
 * types) and publishes the library and the deploy side, nothing of the
 * tests, fixtures, benchmarks, examples or build. It runs offline.
 * @module
 */
import assert from "node:assert/strict";
import { run } from "../_process.ts";
import { ROOT } from "./_graph.ts";
import { integration } from "../_tier.ts";

/** Top-level paths that never go to JSR. */
const EXCLUDED = [
  "tests/",
  "bench/",
  "examples/",
  "deploy/",
  "ui/",
  ".ci/",
  "dist/",
  ".svc/",
  "node_modules/",
  "Containerfile",
  "svc.toml",
  "deno.lock",
  "deno.dev.lock",
];

integration.test("deno publish --dry-run passes and publishes no test, fixture, benchmark, example or build file", async () => {
  const output = await run(Deno.execPath(), ["publish", "--dry-run", "--allow-dirty"], {
    env: { NO_COLOR: "1" },
  });
  const text = output.stdout + output.stderr;
  assert.equal(output.code, 0, text);
  assert.match(text, /Success Dry run complete/);
  assert.doesNotMatch(text, /^error/m, text);

  // The warnings are by design: a user's own class path is imported at run time, an
  // optional package when a component first needs it, and the commands once `svc` is asked
  // for more than its version.
  const warnings = [...text.matchAll(/^warning\[([\w-]+)\].*\n\s*--> (\S+):\d+:\d+/gm)]
    .map((match) => `${match[1]} ${match[2]!.replace(ROOT, "")}`);
  // Each a relative module, or a package named in full: both resolve once published. svc imports
  // by a name the modules it may load later, so that a start does not prepare them (see
  // NAMED_IMPORTS in deploy/compile.ts).
  assert.deepEqual(warnings.sort(), [
    "unanalyzable-dynamic-import cli/api_run.ts",
    "unanalyzable-dynamic-import cli/mod.ts",
    "unanalyzable-dynamic-import components/class_paths.ts",
    "unanalyzable-dynamic-import components/class_paths.ts",
    "unanalyzable-dynamic-import components/core/document.ts",
    "unanalyzable-dynamic-import components/packages.ts",
    "unanalyzable-dynamic-import components/source_storages/demo.ts",
    "unanalyzable-dynamic-import main.ts",
    "unanalyzable-dynamic-import server/api/document_content.ts",
    "unanalyzable-dynamic-import server/auth/registry.ts",
    "unanalyzable-dynamic-import server/database/connect.ts",
  ], text);

  const { name, version, exports } = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  assert.match(text, new RegExp(`Simulating publish of ${name}@${version} with files:`));
  const files = [...text.matchAll(/^\s+file:\/\/(\S+) \(/gm)].map((m) => m[1]!.replace(ROOT, ""));
  assert.ok(files.length > 50, text);
  for (const file of files) {
    const excluded = EXCLUDED.find((path) => file === path || file.startsWith(path));
    assert.equal(excluded, undefined, `${file} is published`);
    assert.doesNotMatch(file, /(^|\/)(fixtures|_test\.ts$|_bench\.ts$)/, `${file} is published`);
  }
  for (const file of ["README.md", "CHANGELOG.md", "deno.json"]) {
    assert.ok(files.includes(file), `${file} is published`);
  }
  for (const path of Object.values(exports) as string[]) {
    assert.ok(files.includes(path.replace(/^\.\//, "")), `the export ${path} is published`);
  }
});

Deno.test("each export of the package has module docs with an example", async () => {
  const { exports } = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  for (const path of Object.values(exports) as string[]) {
    const source = await Deno.readTextFile(`${ROOT}${path}`);
    const doc = /^\/\*\*([\s\S]*?)\*\//.exec(source)?.[1] ?? "";
    assert.match(doc, /@module/, `${path} starts with its module doc`);
    assert.match(doc, /@example\s*\n\s*\*\s*```ts/, `${path}'s module doc has an example`);
  }
});

/** Every TypeScript module below `folder`, relative to the root. */
async function* modules(folder: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${ROOT}${folder}`)) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory) yield* modules(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

Deno.test("every module of components/, server/ and cli/ starts with its module doc", async () => {
  const missing: string[] = [];
  let count = 0;
  for (const folder of ["components", "server", "cli"]) {
    for await (const path of modules(folder)) {
      count++;
      // Line comments may come first: a generated module says so above its doc.
      const source = (await Deno.readTextFile(`${ROOT}${path}`)).replace(/^(\s*\/\/.*\n)*/, "");
      const doc = /^\s*\/\*\*([\s\S]*?)\*\//.exec(source)?.[1] ?? "";
      if (!/@module/.test(doc)) missing.push(path);
    }
  }
  assert.ok(count > 100, `${count} modules`);
  assert.deepEqual(missing, []);
});
