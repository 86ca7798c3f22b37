import assert from "node:assert/strict";
import { CLASS_PATHS, ClassPaths, loadClass } from "../components/class_paths.ts";
import { Assistant, SourceStorage } from "../components/core/component.ts";
import * as assistants from "../components/assistants/mod.ts";
import * as sourceStorages from "../components/source_storages/mod.ts";
import { info, ROOT } from "./dist/_graph.ts";
import { denoArgs, run } from "./_process.ts";
import { integration } from "./_tier.ts";

Deno.test("CLASS_PATHS finds a built-in only once its module is loaded, and refuses an unknown one", async () => {
  assert.equal(CLASS_PATHS.find("svc.assistants.AI21"), undefined, "not loaded yet");
  const loaded = await CLASS_PATHS.load("svc.assistants.AI21");
  assert.equal(loaded, assistants.AI21);
  assert.equal(CLASS_PATHS.find("svc.assistants.AI21"), assistants.AI21);
  assert.equal(CLASS_PATHS.find("./mine.ts#Mine"), undefined, "a user's module is never found");
  assert.throws(() => CLASS_PATHS.find("svc.assistants.Gpt5"), /Unknown class path/);
  await assert.rejects(
    loadClass("svc.assistants.Gpt5"),
    /Unknown class path "svc\.assistants\.Gpt5"/,
  );
});

Deno.test("every built-in class path loads the class its family's mod.ts exports, and each export has one", async () => {
  const families = [
    ["svc.source_storages", sourceStorages, SourceStorage],
    ["svc.assistants", assistants, Assistant],
  ] as const;
  for (const [prefix, exports, family] of families) {
    const exported = Object.entries(exports).filter(([, value]) =>
      typeof value === "function" && value.prototype instanceof family
    );
    const paths = CLASS_PATHS.classPaths().filter((path) => path.startsWith(`${prefix}.`));
    assert.deepEqual(
      paths.toSorted(),
      exported.map(([name]) => `${prefix}.${name}`).toSorted(),
      `components/class_paths.ts has a loader for each export of ${prefix}`,
    );
    for (const [name, component] of exported) {
      assert.equal(await loadClass(`${prefix}.${name}`), component, `${prefix}.${name}`);
    }
  }
});

Deno.test("ClassPaths.registerLoaders() adds class paths whose module loads when first asked for", async () => {
  let loads = 0;
  class Later {}
  const table = new ClassPaths();
  table.registerLoaders("svc.test", {
    Later: () => {
      loads++;
      return Promise.resolve(Later);
    },
  });
  assert.deepEqual(table.classPaths(), ["svc.test.Later"]);
  assert.equal(table.find("svc.test.Later"), undefined);
  assert.equal(loads, 0);
  assert.equal(await table.load("svc.test.Later"), Later);
  assert.equal(await table.load("svc.test.Later"), Later);
  assert.equal(loads, 1, "loaded once");
  assert.equal(table.find("svc.test.Later"), Later);
  assert.throws(() => CLASS_PATHS.find("svc.test.Later"), /Unknown class path/, "only that table");
});

Deno.test("ClassPaths.with() knows its own class paths, then its base's as they are when asked", async () => {
  class Mine {}
  class Later {}
  const base = new ClassPaths({ "svc.base.Mine": () => Promise.resolve(Mine) });
  const more = base.with("svc.more", { Other: () => Promise.resolve(class Other {}) });
  base.registerClasses("svc.base", { Later });
  assert.deepEqual(more.classPaths(), ["svc.base.Mine", "svc.base.Later", "svc.more.Other"]);
  assert.equal(await more.load("svc.base.Mine"), Mine);
  assert.equal(more.find("svc.base.Later"), Later);
  assert.deepEqual(base.classPaths(), ["svc.base.Mine", "svc.base.Later"]);
  assert.throws(() => base.find("svc.more.Other"), /Unknown class path "svc\.more\.Other"/);
  assert.throws(
    () => more.find("svc.more.Nope"),
    /the built-in ones are svc\.base\.Later, svc\.base\.Mine, svc\.more\.Other,/,
  );
  await assert.rejects(more.load("svc.more.Nope"), /Unknown class path "svc\.more\.Nope"/);
});

integration.test("importing svc's modules changes no other module's state: a Rag resolves svc's class paths, a document reads its pages, whatever was imported first", async () => {
  for (const first of ["components/registry.ts", "components/class_paths.ts", "server/mod.ts"]) {
    const script = `
      await import(${JSON.stringify(`${ROOT}${first}`)});
      const { Rag } = await import(${JSON.stringify(`${ROOT}components/rag.ts`)});
      const { CLASS_PATHS } = await import(${JSON.stringify(`${ROOT}components/class_paths.ts`)});
      const { SourceStorage } = await import(${
      JSON.stringify(`${ROOT}components/core/component.ts`)
    });
      const { LocalDocument } = await import(${
      JSON.stringify(`${ROOT}components/core/document.ts`)
    });
      const known = CLASS_PATHS.classPaths().length;
      const loaded = CLASS_PATHS.find("svc.source_storages.SvcDemoSourceStorage");
      const storage = await new Rag().loadComponent("svc.source_storages.SvcDemoSourceStorage", SourceStorage);
      const pages = await LocalDocument.fromPath(${
      JSON.stringify(`${ROOT}tests/fixtures/guide.md`)
    }).extractPages();
      console.log(JSON.stringify([known, loaded === undefined, storage.displayName, pages.length > 0]));
    `;
    const { code, stdout, stderr } = await run(Deno.execPath(), denoArgs("eval", script));
    assert.equal(code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout), [15, true, "Svc/DemoSourceStorage", true], first);
  }
});

/** The local files and npm packages a module loads before it runs: its imports that are not dynamic. */
async function staticGraph(module: string): Promise<Set<string>> {
  const { modules } = await info(module);
  const byName = new Map(modules.map((entry) => [entry.specifier, entry]));
  const root = modules.find((entry) => entry.specifier.endsWith(module))!.specifier;
  const reached = new Set<string>([root]);
  const queue = [root];
  while (queue.length > 0) {
    const entry = byName.get(queue.pop()!);
    for (const dependency of entry?.dependencies ?? []) {
      if ((dependency as { isDynamic?: boolean }).isDynamic || !dependency.code) continue;
      const target = dependency.code.specifier;
      if (!reached.has(target)) {
        reached.add(target);
        queue.push(target);
      }
    }
  }
  return new Set([...reached].map((specifier) => specifier.replace(`file://${ROOT}`, "")));
}

integration.test("svc api loads at start neither a component module, nor the tokenizer, the upload parser, a database client it does not use, commander, jose or a module of Node's", async () => {
  const loaded = new Set([
    ...await staticGraph("cli/mod.ts"),
    ...await staticGraph("server/serve.ts"),
  ]);
  const found = [...loaded].filter((module) =>
    /^components\/(source_storages|assistants)\/|^server\/auth\/(password|oidc|trusted_proxy)\.ts$|^components\/(chunking|registry)\.ts$|^server\/database\/postgres|gpt-tokenizer|busboy|@libsql\/client|pdfjs-dist|mammoth|jszip|commander|jose@|^node:/
      .test(module)
  );
  assert.deepEqual(found, []);
  // What it does load, so that the pattern above is known to match the graph's names.
  assert.ok(loaded.has("components/class_paths.ts"));
  assert.ok([...loaded].some((module) => module.includes("hono@")));
});

integration.test("svc api with its default components loads no document reader, nor Node's streams, before a document needs them", async () => {
  const loaded = new Set([
    ...await staticGraph("cli/mod.ts"),
    ...await staticGraph("server/serve.ts"),
    ...await staticGraph("components/source_storages/demo.ts"),
    ...await staticGraph("components/assistants/demo.ts"),
  ]);
  const found = [...loaded].filter((module) =>
    /^components\/documents\/|^node:(stream|zlib)$/.test(module)
  );
  assert.deepEqual(found, []);
  assert.ok(loaded.has("components/source_storages/demo.ts"));
});
